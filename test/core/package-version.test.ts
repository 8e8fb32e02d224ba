import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PACKAGE_VERSION } from '../../src/core/package-version.js';

describe('PACKAGE_VERSION', () => {
  it("is the version of the package's own package.json", () => {
    const manifest = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    expect(PACKAGE_VERSION).toBe(manifest.version);
  });
});
