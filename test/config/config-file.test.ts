/**
 * Pins what the file loaders share: `parseLoadedEntries` checks configs
 * and names errors by the file's own keys (the longest known prefix of the
 * path, then the rest); `readConfigText` gives `undefined` for a missing
 * file, strips a BOM, rethrows an abort and names the file otherwise;
 * `isPlainRecord`, `quote`, `coerceStrings` (keeps `__proto__` as a key) and
 * `coerceNumber`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  coerceNumber,
  coerceStrings,
  type LoadedEntry,
  parseLoadedEntries,
  quote,
  readConfigText,
} from '../../src/config/config-file.js';
import { McpConfigError } from '../../src/core/errors.js';
import { isPlainRecord } from '../../src/core/json.js';

function entry(
  field: string,
  config: Record<string, unknown>,
  origins: Record<string, string> = {},
): LoadedEntry {
  return { field, config, origins: new Map(Object.entries({ name: '', ...origins })) };
}

function stdio(name: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, transport: { type: 'stdio', command: 'srv' }, ...more };
}

function parseError(entries: readonly LoadedEntry[]): McpConfigError {
  try {
    parseLoadedEntries(entries, 'cfg.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigError);
    return error as McpConfigError;
  }
  throw new Error('expected a throw');
}

describe('parseLoadedEntries', () => {
  it('gives the checked configs, in order', () => {
    expect(parseLoadedEntries([entry('s.a', stdio('a')), entry('s.b', stdio('b'))], 'f')).toEqual([
      { name: 'a', transport: { type: 'stdio', command: 'srv' } },
      { name: 'b', transport: { type: 'stdio', command: 'srv' } },
    ]);
    expect(parseLoadedEntries([], 'f')).toEqual([]);
  });

  it('names a bad value by the file key it came from', () => {
    const error = parseError([
      entry(
        'mcp_servers.a',
        { name: 'a', transport: { type: 'streamable-http', url: 'ftp://x' } },
        { 'transport.url': 'url' },
      ),
    ]);
    expect(error.field).toBe('mcp_servers.a.url');
    expect(error.message).toBe('cfg.yaml: mcp_servers.a.url must use http: or https:, got "ftp:"');
  });

  it('keeps an index after the file key as brackets', () => {
    const error = parseError([
      entry(
        'mcp_servers.a',
        { name: 'a', transport: { type: 'stdio', command: 'x', args: ['ok', 5] } },
        { 'transport.args': 'args' },
      ),
    ]);
    expect(error.field).toBe('mcp_servers.a.args[1]');
    expect(error.message).toBe('cfg.yaml: mcp_servers.a.args[1] must be a string (arguments)');
  });

  it('uses the longest known prefix and writes the rest of the path as it is', () => {
    const error = parseError([
      entry('mcp_servers.a', stdio('a', { isolation: { network: { allow: [5] } } }), {
        isolation: 'sandbox',
      }),
    ]);
    expect(error.field).toBe('mcp_servers.a.sandbox.network.allow[0]');
  });

  it('falls back to the programmatic path for a key with no origin', () => {
    const error = parseError([entry('mcp_servers.a', stdio('a', { timeoutMs: -1 }))]);
    expect(error.field).toBe('mcp_servers.a.timeoutMs');
    expect(error.message).toBe(
      'cfg.yaml: mcp_servers.a.timeoutMs -1 must be a positive number of milliseconds',
    );
  });

  it('names the entry itself for the name, whose origin is the entry key', () => {
    const error = parseError([entry('mcp_servers.Bad', stdio('Bad'))]);
    expect(error.field).toBe('mcp_servers.Bad');
    expect(error.message).toBe(
      'cfg.yaml: mcp_servers.Bad "Bad" must match ^[a-z][a-z0-9_-]{0,31}$',
    );
  });

  it('names the second entry of a duplicate name by its field', () => {
    const error = parseError([
      entry('mcp_servers.a', stdio('a')),
      entry('mcp_servers.b', stdio('a')),
    ]);
    expect(error.message).toBe(
      'cfg.yaml: mcp_servers.b "a" is used by two servers; names must be unique',
    );
  });
});

describe('readConfigText', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'config-file-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the text and strips a leading BOM', async () => {
    const file = path.join(dir, 'a.yaml');
    await writeFile(file, '\uFEFFa: 1\n\uFEFF');
    expect(await readConfigText(file, undefined, 'config file')).toBe('a: 1\n\uFEFF');
  });

  it('gives undefined for a file that does not exist', async () => {
    expect(await readConfigText(path.join(dir, 'none.yaml'), undefined, 'x')).toBeUndefined();
  });

  it('names the file, what it is and the error code for any other failure', async () => {
    const sub = path.join(dir, 'sub');
    await mkdir(sub);
    const error = await readConfigText(sub, undefined, 'config file').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConfigError);
    expect((error as McpConfigError).field).toBe('(file)');
    expect((error as McpConfigError).message).toBe(`${sub}: cannot read the config file (EISDIR)`);
    expect(((error as McpConfigError).cause as NodeJS.ErrnoException).code).toBe('EISDIR');
  });

  it('rethrows an abort as it is', async () => {
    const file = path.join(dir, 'a.yaml');
    await writeFile(file, 'a: 1');
    const controller = new AbortController();
    controller.abort();
    const error = await readConfigText(file, controller.signal, 'x').catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(McpConfigError);
    expect((error as Error).name).toBe('AbortError');
  });
});

describe('isPlainRecord', () => {
  it('is true only for plain objects, as JSON and YAML make maps', () => {
    expect([{}, Object.create(null)].map(isPlainRecord)).toEqual([true, true]);
    // A Map or a Set is YAML's `!!omap` or `!!set`: an `env` so written was dropped whole.
    expect(
      [null, undefined, [], 'a', 1, true, new Date(), new Map([['a', 'b']]), new Set()].map(
        isPlainRecord,
      ),
    ).toEqual([false, false, false, false, false, false, false, false, false]);
  });
});

describe('quote', () => {
  it('writes JSON, "nothing" for undefined, the type for what JSON cannot write, and cuts at 80', () => {
    expect(quote('a"b')).toBe('"a\\"b"');
    expect(quote(undefined)).toBe('nothing');
    expect(quote(() => 1)).toBe('function');
    const long = quote('x'.repeat(100));
    expect(long).toBe(`"${'x'.repeat(76)}...`);
    expect(long).toHaveLength(80);
  });
});

describe('coerceStrings', () => {
  it('turns numbers and booleans in a list into strings, leaving other items', () => {
    const nested = { a: 1 };
    expect(coerceStrings([8000, true, 'x', null, nested])).toEqual([
      '8000',
      'true',
      'x',
      null,
      nested,
    ]);
  });

  it('does the same for the values of a map, keeping __proto__ as a key', () => {
    const input = JSON.parse('{"PORT": 8000, "DEBUG": false, "__proto__": 1, "s": "x"}') as unknown;
    const out = coerceStrings(input) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['PORT', 'DEBUG', '__proto__', 's']);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe('1');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out['PORT']).toBe('8000');
    expect(out['DEBUG']).toBe('false');
  });

  it('leaves scalars and null as they are', () => {
    expect([5, 'a', null, undefined].map(coerceStrings)).toEqual([5, 'a', null, undefined]);
  });
});

describe('coerceNumber', () => {
  it('turns decimal digits, optionally with a fraction and spaces, into a number', () => {
    expect(['30000', ' 42 ', '1.5'].map(coerceNumber)).toEqual([30_000, 42, 1.5]);
  });

  it('leaves anything else as it is', () => {
    expect(['-1', '1e3', '0x10', '1.', '.5', '', 'abc', 7, null].map(coerceNumber)).toEqual([
      '-1',
      '1e3',
      '0x10',
      '1.',
      '.5',
      '',
      'abc',
      7,
      null,
    ]);
  });
});
