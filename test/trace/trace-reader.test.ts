import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Session, TraceRecorder, readTrace } from '../../src/index.js';
import { buildTraceModel } from '../../src/trace/trace-model.js';
import { listTraceFiles, parseTraceLines } from '../../src/trace/trace-reader.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'trace-reader-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const header = (part: number) =>
  JSON.stringify({
    kind: 'header',
    trace: 'mcp-sections',
    version: 1,
    sessionId: 's',
    at: '2026-01-01T00:00:00.000Z',
    part,
    sensitivity: 'public',
    privateResults: false,
  });
const event = (seq: number) =>
  JSON.stringify({ kind: 'event', seq, at: '2026-01-01T00:00:00.000Z', type: 'E', fields: {} });

describe('readTrace', () => {
  it('reads the older parts first', async () => {
    await writeFile(path.join(dir, 'run.2.jsonl'), `${header(0)}\n${event(1)}\n`);
    await writeFile(path.join(dir, 'run.1.jsonl'), `${header(1)}\n${event(2)}\n`);
    await writeFile(path.join(dir, 'run.jsonl'), `${header(2)}\n${event(3)}\n`);
    const trace = await readTrace(path.join(dir, 'run.jsonl'));
    expect(
      trace.records.flatMap((record) => (record.kind === 'event' ? [record.seq] : [])),
    ).toEqual([1, 2, 3]);
    expect(trace.truncated).toBe(false);
    expect(trace.name).toBe('run.jsonl');
  });

  it('reads a part of 200,000 records (a spread of them would overflow the stack)', async () => {
    const lines = [header(0)];
    for (let seq = 1; seq <= 200_000; seq++) lines.push(event(seq));
    await writeFile(path.join(dir, 'long.jsonl'), `${lines.join('\n')}\n`);
    const trace = await readTrace(path.join(dir, 'long.jsonl'));
    expect(trace.records).toHaveLength(200_001);
    expect(trace.records.at(-1)).toMatchObject({ kind: 'event', seq: 200_000 });
  });

  it('skips and counts a record nested deeper than a recorder writes (JSON.stringify would overflow)', async () => {
    const depth = 200_000;
    const deep = `{"kind":"event","seq":1,"at":"2026-01-01T00:00:00.000Z","type":"X","fields":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    await writeFile(path.join(dir, 'deep.jsonl'), `${header(0)}\n${deep}\n${event(2)}\n`);
    const trace = await readTrace(path.join(dir, 'deep.jsonl'));
    expect(trace.skippedLines).toBe(1);
    expect(trace.records.map((record) => record.kind)).toEqual(['header', 'event']);
    expect(() => JSON.stringify(buildTraceModel(trace))).not.toThrow();
  });

  it('keeps the deepest records a recorder writes', async () => {
    const session = new Session();
    const slice = session.slice('tree', { initial: { root: {} } });
    const file = path.join(dir, 'recorded.jsonl');
    const recorder = new TraceRecorder(session, { path: file });
    let nested: Record<string, unknown> = {};
    for (let level = 0; level < 200; level += 1) nested = { child: [nested] };
    slice.update((draft) => {
      draft.root = nested;
    });
    recorder.snapshot('deep');
    await recorder.close();
    const trace = await readTrace(file);
    expect(trace.skippedLines).toBe(0);
    const labels = trace.records.flatMap((record) =>
      record.kind === 'snapshot' ? [record.label] : [],
    );
    expect(labels).toContain('deep');
  });

  it('names a file it cannot read', async () => {
    const missing = path.join(dir, 'missing.jsonl');
    await expect(readTrace(missing)).rejects.toMatchObject({
      code: 'trace-read',
      message: expect.stringContaining(
        `trace ${JSON.stringify(missing)} could not be read`,
      ) as unknown,
    });
  });
});

describe('parseTraceLines', () => {
  it('skips lines that are not records: bad JSON, unknown kinds, missing seq', () => {
    const { records, skipped } = parseTraceLines(
      `${header(0)}\n\n{"kind":"event"}\n{"kind":"other","seq":1,"at":"x"}\n[1]\n${event(1)}\n{"kind":"ev`,
    );
    expect(records.map((record) => record.kind)).toEqual(['header', 'event']);
    expect(skipped).toBe(4);
  });
});

describe('listTraceFiles', () => {
  it('lists traces newest first, without their rotated parts', async () => {
    for (const name of ['old.jsonl', 'new.jsonl', 'new.1.jsonl', 'lonely.3.jsonl', 'notes.txt']) {
      await writeFile(path.join(dir, name), '');
    }
    await utimes(path.join(dir, 'old.jsonl'), 1_000, 1_000);
    await utimes(path.join(dir, 'lonely.3.jsonl'), 2_000, 2_000);
    const names = (await listTraceFiles(dir)).map((entry) => entry.name);
    expect(names).toEqual(['new.jsonl', 'lonely.3.jsonl', 'old.jsonl']);
  });

  it('names a directory it cannot read', async () => {
    await expect(listTraceFiles(path.join(dir, 'none'))).rejects.toMatchObject({
      code: 'trace-read',
    });
  });
});
