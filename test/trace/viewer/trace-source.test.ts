import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Session, TraceRecorder, type TraceRecord } from '../../../src/index.js';
import { fileTraceSource, memoryTraceSource } from '../../../src/trace/viewer/trace-source.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'trace-source-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('fileTraceSource', () => {
  it('reads a file again once it changed, with a new version', async () => {
    const file = path.join(dir, 'run.jsonl');
    await new TraceRecorder(new Session(), { path: file }).close();
    const source = await fileTraceSource(file);
    expect(await source.list()).toEqual(['run.jsonl']);
    const first = await source.load();
    expect(await source.load()).toBe(first);
    const line: TraceRecord = {
      kind: 'event',
      seq: 9,
      at: new Date().toISOString(),
      type: 'Later',
      fields: {},
    };
    await appendFile(file, `${JSON.stringify(line)}\n`);
    const second = await source.load('run.jsonl');
    expect(second.version).toBe(first.version + 1);
    expect(second.model.events.map((event) => event.type)).toEqual(['Later']);
  });

  it('refuses a path that is neither a file nor a directory, and an unknown name', async () => {
    await expect(fileTraceSource(path.join(dir, 'none'))).rejects.toMatchObject({
      code: 'trace-read',
    });
    const source = await fileTraceSource(dir);
    await expect(source.load()).rejects.toThrow(`no trace (*.jsonl) in ${JSON.stringify(dir)}`);
    await expect(source.load('x.jsonl')).rejects.toThrow(`no trace named "x.jsonl"`);
  });
});

describe('memoryTraceSource', () => {
  it('builds the model again only when the version moved', async () => {
    let version = 1;
    const records: TraceRecord[] = [];
    const source = memoryTraceSource(
      () => ({ name: 'live', records, skippedLines: 0, truncated: false }),
      () => version,
      { live: true },
    );
    const first = await source.load();
    expect(await source.load()).toBe(first);
    records.push({ kind: 'event', seq: 1, at: new Date().toISOString(), type: 'E', fields: {} });
    version = 2;
    expect((await source.load()).model.events).toHaveLength(1);
    await expect(source.load('other')).rejects.toThrow(
      'no trace named "other"; this viewer shows "live"',
    );
  });
});
