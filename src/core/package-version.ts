import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'mcp-sections';

/**
 * The version in this package's own `package.json`, found by walking up from
 * this file (it sits in `src/core/` in the repository and in
 * `dist/src/core/` once built). `0.0.0` if it cannot be read.
 */
export function packageVersion(): string {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === PACKAGE_NAME && typeof manifest.version === 'string') {
        return manifest.version;
      }
    } catch {
      // No package.json here: keep walking up.
    }
    const parent = path.dirname(directory);
    if (parent === directory) return '0.0.0';
    directory = parent;
  }
}

/** This package's version, read once. */
export const PACKAGE_VERSION: string = packageVersion();
