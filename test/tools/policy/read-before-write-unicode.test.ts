/**
 * readBeforeWrite and Unicode-equivalent spellings of a path. The reference
 * file-system server writes a path that does not exist as spelled to an
 * existing entry with the same NFC form (Café.md in NFD, KELVIN SIGN for
 * K), so the policy refuses a write path that is not in normal form and
 * counts a normal one as existing when an equivalent entry exists. The
 * tools here resolve paths as that server does.
 */
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Session,
  Tool,
  ToolResult,
  invokeTool,
  readBeforeWrite,
  type ToolPolicy,
} from '../../../src/index.js';
import { tempDir, type TempDir } from '../../support/mcp-fixtures.js';

const NFC_CAFE = 'Caf\u00e9.md';
const NFD_CAFE = 'Cafe\u0301.md';
const KELVIN_KEYS = '\u212AEYS.txt';

let dir: TempDir;

beforeEach(async () => {
  dir = await tempDir('read-before-write-unicode');
  await writeFile(path.join(dir.path, NFC_CAFE), 'original\n');
  await writeFile(path.join(dir.path, 'KEYS.txt'), 'original\n');
});

afterEach(async () => {
  await dir[Symbol.asyncDispose]();
});

/** A path as server-filesystem resolves it: each part as spelled, else the entry with its NFC form. */
async function resolveLikeServer(file: string): Promise<string> {
  let current = dir.path;
  const parts = path.relative(dir.path, path.resolve(dir.path, file)).split(path.sep);
  for (const [index, part] of parts.entries()) {
    let entries: string[];
    try {
      entries = await readdir(current);
    } catch {
      return path.join(current, ...parts.slice(index));
    }
    const match = entries.includes(part)
      ? part
      : entries.find((entry) => entry.normalize('NFC') === part.normalize('NFC'));
    if (match === undefined) return path.join(current, ...parts.slice(index));
    current = path.join(current, match);
  }
  return current;
}

const readTool = Tool.create({
  name: 'read_file',
  description: 'Reads a file',
  params: z.object({ path: z.string() }),
  handler: async ({ path: file }) => {
    try {
      return ToolResult.ok(await readFile(await resolveLikeServer(file), 'utf8'));
    } catch (error) {
      return ToolResult.error(error instanceof Error ? error.message : String(error));
    }
  },
});

const writeTool = Tool.create({
  name: 'write_file',
  description: 'Writes a file',
  params: z.object({ path: z.string(), content: z.string() }),
  handler: async ({ path: file, content }) => {
    await writeFile(await resolveLikeServer(file), content);
    return ToolResult.ok('written');
  },
});

function policies(): ToolPolicy[] {
  return [readBeforeWrite({ root: dir.path })];
}

function write(session: Session, file: string, list = policies()): Promise<ToolResult> {
  return invokeTool(writeTool, { path: file, content: 'PWNED\n' }, { session, policies: list });
}

function read(session: Session, file: string, list = policies()): Promise<ToolResult> {
  return invokeTool(readTool, { path: file }, { session, policies: list });
}

describe('readBeforeWrite with Unicode-equivalent paths', () => {
  it('refuses the NFD spelling of an existing file that was not read', async () => {
    const result = await write(new Session(), path.join(dir.path, NFD_CAFE));
    expect(result.message).toBe(
      `tool "write_file" was denied by policy "read-before-write": path ${JSON.stringify(path.join(dir.path, NFD_CAFE))} is not in Unicode normal form (NFC and NFKC), so it may name an existing file whose name is spelled differently; use ${JSON.stringify(path.join(dir.path, NFC_CAFE))}`,
    );
    expect(await readFile(path.join(dir.path, NFC_CAFE), 'utf8')).toBe('original\n');
  });

  it('refuses a path starting with "~", which a server may read as its home', async () => {
    const session = new Session();
    for (const file of ['~/KEYS.txt', '~']) {
      const refused = await write(session, file);
      expect(refused.message).toBe(
        `tool "write_file" was denied by policy "read-before-write": path ${JSON.stringify(file)} starts with "~", which the server may read as its home directory; give the path without "~"`,
      );
    }
    // A name that only begins with the character is a name.
    expect((await write(session, '~notes.txt')).success).toBe(true);
  });

  it('refuses a KELVIN SIGN for K, and a fullwidth letter (equal only in NFKC)', async () => {
    const session = new Session();
    const kelvin = await write(session, KELVIN_KEYS);
    expect(kelvin.message).toBe(
      'tool "write_file" was denied by policy "read-before-write": path "\u212AEYS.txt" is not in Unicode normal form (NFC and NFKC), so it may name an existing file whose name is spelled differently; use "KEYS.txt"',
    );
    const fullwidth = await write(session, '\uFF2BEYS.txt');
    expect(fullwidth.message).toMatch(
      /is not in Unicode normal form \(NFC and NFKC\).*use "KEYS.txt"$/,
    );
    expect(await readFile(path.join(dir.path, 'KEYS.txt'), 'utf8')).toBe('original\n');
  });

  it('refuses a spelling that is not normal even after a read under that spelling', async () => {
    const session = new Session();
    expect((await read(session, NFD_CAFE)).success).toBe(true);
    expect((await write(session, NFD_CAFE)).message).toMatch(/is not in Unicode normal form/);
    // The normal spelling, read, may be written.
    expect((await read(session, NFC_CAFE)).success).toBe(true);
    expect((await write(session, NFC_CAFE)).success).toBe(true);
  });

  it('counts a normal spelling as existing when only an equivalent entry exists', async () => {
    // A file made elsewhere (macOS, an archive) with its name in NFD.
    await writeFile(path.join(dir.path, `Resume\u0301.txt`), 'original\n');
    const session = new Session();
    const refused = await write(session, 'Resum\u00e9.txt');
    expect(refused.message).toBe(
      'tool "write_file" was denied by policy "read-before-write": file "Resum\u00e9.txt" exists and has not been read in this session; read it first (read_file or read_text_file or read_multiple_files)',
    );
    expect(await readFile(path.join(dir.path, `Resume\u0301.txt`), 'utf8')).toBe('original\n');
    // Read under the same spelling, it may be written.
    expect((await read(session, 'Resum\u00e9.txt')).success).toBe(true);
    expect((await write(session, 'Resum\u00e9.txt')).success).toBe(true);
  });

  it('follows equivalent directories: an existing file under one is existing, a new one is new', async () => {
    await mkdir(path.join(dir.path, 'Cafe\u0301'));
    await writeFile(path.join(dir.path, 'Cafe\u0301', 'menu.md'), 'original\n');
    const session = new Session();
    expect((await write(session, 'Caf\u00e9/menu.md')).message).toMatch(
      /file "Café\/menu.md" exists and has not been read in this session/,
    );
    expect((await write(session, 'Caf\u00e9/new.md')).success).toBe(true);
    expect(await readFile(path.join(dir.path, 'Cafe\u0301', 'new.md'), 'utf8')).toBe('PWNED\n');
  });

  it('counts an entry equal only in NFKC as existing (a file system may fold it)', async () => {
    await writeFile(path.join(dir.path, '\uFB01le.txt'), 'original\n');
    expect((await write(new Session(), 'file.txt')).message).toMatch(
      /file "file.txt" exists and has not been read in this session/,
    );
  });

  it('lets normal paths work as before: new files, non-ASCII NFC names, reads then writes', async () => {
    const session = new Session();
    expect((await write(session, 'new.txt')).success).toBe(true);
    expect((await write(session, '\u00dcbersicht.md')).success).toBe(true);
    expect((await write(session, 'KEYS.txt')).success).toBe(false);
    expect((await read(session, 'KEYS.txt')).success).toBe(true);
    expect((await write(session, 'KEYS.txt')).success).toBe(true);
  });
});
