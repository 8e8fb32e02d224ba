/**
 * A persistent slice may be named `__proto__` like any other name: the
 * file store saved it and read it back through records that assign keys
 * (a plain object, zod's record), where the name became a prototype and
 * the slice came back at its initial value.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileSessionStore, Session } from '../../../src/index.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

describe('a persistent slice named __proto__', () => {
  it('is saved and resumed as any other slice', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'mcp-sections-proto-slice-'));
    directories.push(directory);
    const first = await Session.open({
      sessionId: 'p1',
      store: new FileSessionStore({ directory }),
    });
    for (const name of ['__proto__', 'plain']) {
      first.slice<{ v: number }>(name, { initial: { v: 0 }, persistent: true }).update((draft) => {
        draft.v = 7;
      });
    }
    await first.flush();
    const resumed = await Session.open({
      sessionId: 'p1',
      store: new FileSessionStore({ directory }),
    });
    for (const name of ['__proto__', 'plain']) {
      const slice = resumed.slice<{ v: number }>(name, { initial: { v: 0 }, persistent: true });
      expect(slice.get().v, name).toBe(7);
    }
  });
});
