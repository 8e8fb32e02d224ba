import { mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CONTEXT_PRESETS,
  contextResult,
  ContextResultError,
  WorkspacePathError,
  type ContextPreset,
  type ContextPresetName,
  type WorkspaceScope,
} from '../../src/server/index.js';
import { makeTempDirs, type TempDirs } from './helpers.js';

let dirs: TempDirs;
let workspace: WorkspaceScope;
let resultsDir: string;
beforeEach(async () => {
  dirs = await makeTempDirs();
  workspace = { root: dirs.workspaceRoot, userId: 'alice', sessionId: 's1' };
  resultsDir = path.join(dirs.workspaceRoot, 'alice', 's1', 'results');
});
afterEach(async () => {
  await dirs.remove();
});

const MESSAGE =
  /^Results saved to (\/workspace\/results\/result_[0-9a-f]{8}\.(json|csv|txt)) \((\d+) chars\)\n\nPreview:\n([\s\S]*)$/;

interface Saved {
  readonly workspacePath: string;
  readonly extension: string;
  readonly chars: number;
  readonly preview: string;
  readonly content: string;
}

/** Parses a "Results saved" message and reads the saved file. */
async function saved(message: string): Promise<Saved> {
  const match = MESSAGE.exec(message);
  if (match === null) throw new Error(`not a saved-result message: ${message.slice(0, 120)}`);
  const [, workspacePath = '', extension = '', chars = '', preview = ''] = match;
  const host = path.join(
    dirs.workspaceRoot,
    'alice',
    's1',
    workspacePath.replace(/^\/workspace\//, ''),
  );
  return {
    workspacePath,
    extension,
    chars: Number(chars),
    preview,
    content: await readFile(host, 'utf8'),
  };
}

async function savedFiles(): Promise<string[]> {
  return readdir(resultsDir).catch(() => []);
}

/** Inputs of an exact length `n`, per kind. */
const makers: Record<'json' | 'csv' | 'text', (n: number) => string> = {
  // One string item padded to length n: ["aaa..."]
  json: (n) => `["${'a'.repeat(n - 4)}"]`,
  csv: (n) => {
    let text = 'id,name\n';
    for (let i = 1; ; i++) {
      const row = `${i},row${i}\n`;
      if (text.length + row.length + 20 > n) break;
      text += row;
    }
    const prefix = '0,';
    return text + prefix + 'z'.repeat(n - text.length - prefix.length);
  },
  text: (n) => {
    const lines: string[] = [];
    while (lines.join('\n').length + 20 < n) lines.push(`log line ${lines.length}`);
    const text = lines.join('\n') + '\n';
    return text + 'x'.repeat(n - text.length);
  },
};

describe('contextResult thresholds', () => {
  const presets: [ContextPresetName, number][] = [
    ['default', 5000],
    ['sql_query', 2000],
    ['log_search', 10000],
  ];
  const kinds = [
    ['json', 'json'],
    ['csv', 'csv'],
    ['text', 'txt'],
  ] as const;

  for (const [preset, threshold] of presets) {
    for (const [kind, extension] of kinds) {
      it(`${preset} / ${kind}: under and at ${threshold} unchanged, over saved in full`, async () => {
        expect(CONTEXT_PRESETS[preset].threshold).toBe(threshold);
        const under = makers[kind](threshold - 1);
        const at = makers[kind](threshold);
        const over = makers[kind](threshold + 1);
        expect([under.length, at.length, over.length]).toEqual([
          threshold - 1,
          threshold,
          threshold + 1,
        ]);

        expect(await contextResult(under, { preset, workspace })).toBe(under);
        expect(await contextResult(at, { preset, workspace })).toBe(at);
        expect(await savedFiles()).toEqual([]);

        const message = await contextResult(over, { preset, workspace });
        const result = await saved(message);
        expect(result.extension).toBe(extension);
        expect(result.chars).toBe(threshold + 1);
        expect(result.content).toBe(over);
        expect(result.preview.length).toBeLessThanOrEqual(over.length);
        expect(await savedFiles()).toEqual([path.basename(result.workspacePath)]);
      });
    }
  }
});

describe('contextResult previews', () => {
  it('JSON arrays keep 10 first and 5 last items', async () => {
    const items = Array.from({ length: 100 }, (_, i) => ({
      id: i,
      label: `item ${i}`,
      pad: 'p'.repeat(40),
    }));
    const result = await saved(await contextResult(items, { workspace }));
    expect(result.extension).toBe('json');
    expect(JSON.parse(result.content)).toEqual(items);
    expect(result.preview).toContain('... (85 items omitted) ...');
    const ids = [...result.preview.matchAll(/"id": (\d+)/g)].map((m) => Number(m[1]));
    expect(ids).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 95, 96, 97, 98, 99]);
  });

  it('JSON objects keep their first 20 keys', async () => {
    const object = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [`key${i}`, 'v'.repeat(60)]),
    );
    const result = await saved(await contextResult(JSON.stringify(object), { workspace }));
    expect(result.extension).toBe('json');
    const keys = [...result.preview.matchAll(/"(key\d+)":/g)].map((m) => m[1]);
    expect(keys).toEqual(Array.from({ length: 20 }, (_, i) => `key${i}`));
    expect(result.preview).toContain('... (80 keys omitted) ...');
  });

  it.each([
    ['default', 20, 10],
    ['sql_query', 30, 10],
  ] as const)(
    'CSV with %s keeps the header, %i first and %i last rows',
    async (preset, head, tail) => {
      const rows = Array.from({ length: 200 }, (_, i) => `${i},name-${i},"quoted, ${i}"`);
      const csv = ['id,name,note', ...rows].join('\n');
      const result = await saved(await contextResult(csv, { preset, workspace }));
      expect(result.extension).toBe('csv');
      const lines = result.preview.split('\n');
      expect(lines[0]).toBe('id,name,note');
      expect(lines.slice(1, 1 + head)).toEqual(rows.slice(0, head));
      expect(lines[1 + head]).toBe(`... (${200 - head - tail} rows omitted) ...`);
      expect(lines.slice(2 + head)).toEqual(rows.slice(200 - tail));
    },
  );

  it('text keeps 50 first and 20 last lines', async () => {
    const lines = Array.from({ length: 500 }, (_, i) => `2024-05-01T10:00:${i} INFO event ${i}`);
    const result = await saved(
      await contextResult(lines.join('\n'), { preset: 'log_search', workspace }),
    );
    expect(result.extension).toBe('txt');
    const preview = result.preview.split('\n');
    expect(preview.slice(0, 50)).toEqual(lines.slice(0, 50));
    expect(preview[50]).toBe('... (430 lines omitted) ...');
    expect(preview.slice(51)).toEqual(lines.slice(480));
  });

  it('cuts one enormous line: the preview is never longer than its input', async () => {
    const line = 'A'.repeat(200_000);
    const message = await contextResult(line, { workspace });
    const result = await saved(message);
    expect(result.content).toBe(line);
    expect(result.preview.length).toBeLessThan(1_000);
    expect(result.preview).toMatch(/^A{500} \.\.\. \(199500 chars omitted\)$/);
    expect(message.length).toBeLessThan(line.length);
  });

  it('caps a preview made of a few huge JSON items', async () => {
    const items = Array.from({ length: 3 }, (_, i) => ({ i, blob: 'b'.repeat(30_000) }));
    const result = await saved(await contextResult(items, { workspace }));
    expect(result.preview.length).toBeLessThanOrEqual(CONTEXT_PRESETS.default.maxPreviewChars);
  });

  it('keeps previews within the input and the preset budget (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({
          minLength: 2001,
          maxLength: 12_000,
          unit: fc.constantFrom('a', ',', '\n', '"', '[', ']', 'é', '😀'),
        }),
        async (text) => {
          const message = await contextResult(text, { preset: 'sql_query', workspace });
          const result = await saved(message);
          expect(result.content).toBe(text);
          expect(result.preview.length).toBeLessThanOrEqual(Math.min(text.length, 4_000));
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('contextResult errors', () => {
  it('refuses a results directory that is a symlink, even one that stays inside', async () => {
    const sessionDir = path.dirname(resultsDir);
    await mkdir(path.join(sessionDir, 'elsewhere'), { recursive: true });
    await symlink(path.join(sessionDir, 'elsewhere'), resultsDir);
    const error = await contextResult('x'.repeat(6000), { workspace }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspacePathError);
    expect((error as WorkspacePathError).reason).toBe('traversal');
    expect((error as Error).message).not.toContain(dirs.base);
    expect(await readdir(path.join(sessionDir, 'elsewhere'))).toEqual([]);
  });

  it('refuses a preset of its own that lacks a size, naming the field', async () => {
    const partial = { threshold: 100 } as unknown as ContextPreset;
    await expect(contextResult('x'.repeat(500), { preset: partial, workspace })).rejects.toThrow(
      /context preset field jsonHeadItems must be a non-negative integer, got nothing/,
    );
  });

  it('names a results path taken by a file as one the agent can clear, and saves for the owner only', async () => {
    await mkdir(path.dirname(resultsDir), { recursive: true });
    await writeFile(resultsDir, 'not a directory');
    const error = await contextResult('x'.repeat(6_000), { workspace }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspacePathError);
    expect((error as WorkspacePathError).reason).toBe('wrong-kind');
    await rm(resultsDir);
    const text = await contextResult('x'.repeat(6_000), { workspace });
    const saved = path.join(resultsDir, path.basename(MESSAGE.exec(text)![1]!));
    expect((await stat(saved)).mode & 0o777).toBe(0o600);
    expect((await stat(resultsDir)).mode & 0o777).toBe(0o700);
  });

  it('names an unknown preset and the known ones', async () => {
    const error = await contextResult('x', {
      preset: 'huge' as ContextPresetName,
      workspace,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContextResultError);
    expect((error as Error).message).toBe(
      'unknown context preset "huge"; expected one of default, sql_query, log_search',
    );
  });

  it('refuses values without a JSON form', async () => {
    await expect(contextResult(undefined, { workspace })).rejects.toThrow(/has no JSON form/);
    await expect(contextResult({ n: 1n }, { workspace })).rejects.toThrow(
      /cannot be serialised as JSON/,
    );
  });
});
