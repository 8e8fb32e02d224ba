import {
  chown,
  link,
  mkdtemp,
  readFile,
  readdir,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RotatingTraceFile, tracePartPath } from '../../src/trace/trace-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'trace-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tracePartPath', () => {
  it('numbers older parts before the extension', () => {
    expect(tracePartPath('/t/run.jsonl', 0)).toBe('/t/run.jsonl');
    expect(tracePartPath('/t/run.jsonl', 2)).toBe('/t/run.2.jsonl');
    expect(tracePartPath('/t/run', 1)).toBe('/t/run.1');
  });
});

describe('RotatingTraceFile', () => {
  it('keeps lines in order across rotations, each part starting with its start lines', async () => {
    const file = path.join(dir, 'nested', 'log.jsonl');
    const out = new RotatingTraceFile({
      path: file,
      maxBytes: 4_096,
      maxFiles: 10,
      startLines: (part) => [`start ${part}`],
    });
    for (let index = 0; index < 300; index += 1) out.append(`line ${index} ${'x'.repeat(30)}`);
    await out.close();
    const names = (await readdir(path.dirname(file))).sort();
    const parts = names.length;
    expect(parts).toBeGreaterThan(2);
    const lines: string[] = [];
    for (let index = parts - 1; index >= 0; index -= 1) {
      const text = await readFile(tracePartPath(file, index), 'utf8');
      const [start, ...rest] = text.trimEnd().split('\n');
      expect(start).toBe(`start ${parts - 1 - index}`);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4_096);
      lines.push(...rest);
    }
    expect(lines.map((line) => Number(line.split(' ')[1]))).toEqual([...Array(300).keys()]);
  });

  it('stops recording, saying why, when the lines queued pass what it may hold', async () => {
    const file = path.join(dir, 'behind.jsonl');
    const out = new RotatingTraceFile({
      path: file,
      maxBytes: 1024 * 1024,
      maxFiles: 2,
      startLines: () => ['start'],
      maxQueuedBytes: 8_192,
    });
    // Appends are synchronous and the file is written later: 20 KB queue at once.
    for (let index = 0; index < 20; index += 1) out.append(`line ${index} ${'x'.repeat(1_000)}`);
    expect(out.error?.code).toBe('trace-write');
    expect(out.error?.message).toBe(
      `trace ${JSON.stringify(file)} fell more than 8192 bytes behind its file (writes do not keep up), recording stopped`,
    );
    out.append('after the stop');
    await expect(out.close()).rejects.toThrow('recording stopped');
    const written = await readFile(file, 'utf8').catch(() => '');
    expect(written).not.toContain('after the stop');
    expect(written.length).toBeLessThan(8_192);
  });

  it('holds no more than it may when the lines are written as fast as they come', async () => {
    const out = new RotatingTraceFile({
      path: path.join(dir, 'steady.jsonl'),
      maxBytes: 1024 * 1024,
      maxFiles: 2,
      startLines: () => ['start'],
      maxQueuedBytes: 8_192,
    });
    for (let index = 0; index < 200; index += 1) {
      out.append(`line ${index} ${'x'.repeat(1_000)}`);
      await out.flush();
    }
    await out.close();
    expect(out.error).toBeUndefined();
  });

  it("keeps every part the owner's alone (0600), a file that was there before included", async () => {
    const file = path.join(dir, 'private.jsonl');
    await writeFile(file, 'an older recording\n', { mode: 0o644 });
    const out = new RotatingTraceFile({
      path: file,
      maxBytes: 4_096,
      maxFiles: 3,
      startLines: () => ['start'],
    });
    for (let index = 0; index < 300; index += 1) out.append(`line ${index} ${'x'.repeat(30)}`);
    await out.close();
    const names = await readdir(dir);
    expect(names.length).toBe(3);
    for (const name of names) {
      expect(((await stat(path.join(dir, name))).mode & 0o777).toString(8)).toBe('600');
    }
  });

  it('never writes through a symbolic link in its place, and says why', async () => {
    const victim = path.join(dir, 'victim.conf');
    await writeFile(victim, 'must not change\n', { mode: 0o644 });
    const file = path.join(dir, 'linked.jsonl');
    await symlink(victim, file);
    const out = new RotatingTraceFile({
      path: file,
      maxBytes: 4_096,
      maxFiles: 2,
      startLines: () => ['start'],
    });
    out.append('private line');
    await expect(out.close()).rejects.toThrow(
      `${JSON.stringify(file)} is a symbolic link: a trace is never written through one`,
    );
    expect(await readFile(victim, 'utf8')).toBe('must not change\n');
    expect((await stat(victim)).mode & 0o777).toBe(0o644);
  });

  it.runIf(process.geteuid?.() === 0)(
    'never writes into a file another user made in its place (the trace would be theirs to read)',
    async () => {
      const file = path.join(dir, 'planted.jsonl');
      await writeFile(file, '', { mode: 0o666 });
      await chown(file, 65_534, 65_534);
      const out = new RotatingTraceFile({
        path: file,
        maxBytes: 4_096,
        maxFiles: 2,
        startLines: () => ['start'],
      });
      out.append('private line');
      await expect(out.close()).rejects.toThrow(/belongs to another user \(uid 65534\)/);
      expect(await readFile(file, 'utf8')).toBe('');
      expect((await stat(file)).uid).toBe(65_534);
    },
  );

  it('replaces an earlier file of its own with a new one, never writing into the old', async () => {
    const file = path.join(dir, 'again.jsonl');
    await writeFile(file, 'an older recording\n');
    // A hard link elsewhere to the old file (another file's name, for all the recorder knows).
    const other = path.join(dir, 'other.txt');
    await link(file, other);
    const before = (await stat(file)).ino;
    const out = new RotatingTraceFile({
      path: file,
      maxBytes: 4_096,
      maxFiles: 2,
      startLines: () => ['start'],
    });
    out.append('new line');
    await out.close();
    expect(await readFile(file, 'utf8')).toBe('start\nnew line\n');
    expect((await stat(file)).ino).not.toBe(before);
    expect(await readFile(other, 'utf8')).toBe('an older recording\n');
  });

  it('with maxFiles 1 keeps only the current part', async () => {
    const file = path.join(dir, 'one.jsonl');
    const out = new RotatingTraceFile({
      path: file,
      maxBytes: 4_096,
      maxFiles: 1,
      startLines: () => ['start'],
    });
    for (let index = 0; index < 300; index += 1) out.append(`line ${index} ${'x'.repeat(30)}`);
    await out.close();
    expect(await readdir(dir)).toEqual(['one.jsonl']);
    expect((await readFile(file, 'utf8')).trimEnd().split('\n').at(-1)).toMatch(/^line 299 /);
  });

  it('writes nothing more after close', async () => {
    const file = path.join(dir, 'closed.jsonl');
    const out = new RotatingTraceFile({
      path: file,
      maxBytes: 4_096,
      maxFiles: 2,
      startLines: () => ['start'],
    });
    out.append('before');
    await out.close();
    out.append('after');
    await out.flush();
    expect(await readFile(file, 'utf8')).toBe('start\nbefore\n');
  });
});
