import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Session,
  Tool,
  ToolResult,
  TraceRecorder,
  defineEvent,
  invokeTool,
  readTrace,
  type TraceEventRecord,
} from '../../src/index.js';
import { traceEventMask } from '../../src/trace/trace-event-mask.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'trace-event-mask-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

class Exported extends defineEvent<{
  readonly sessionId: string;
  readonly createdAt: Date;
  readonly rows: readonly string[];
}>() {}

const servers = [
  {
    name: 'vault',
    transport: { type: 'stdio' as const, command: 'vault-mcp' },
    env: { VAULT_TOKEN: 'env-token-5a7c1e', ACCOUNT: '987654321' },
  },
];

const lookup = Tool.create({
  name: 'lookup',
  description: 'Looks a patient up.',
  params: z.object({ name: z.string(), password: z.string() }),
  handler: ({ name }) =>
    ToolResult.ok({ record: `SSN 123-45-6789 of ${name}`, account: 987654321 }),
});

describe('traceEventMask', () => {
  it('writes of every event what a TraceRecorder with the same options writes', async () => {
    const session = new Session();
    const file = path.join(dir, 'run.jsonl');
    const trace = new TraceRecorder(session, { path: file, servers, snapshots: false });
    const mask = traceEventMask({ servers });
    const mirrored: { type: string; fields: unknown }[] = [];
    session.bus.subscribeAll((event) => {
      const entry = mask(event, { hasPrivateData: session.privateData.hasPrivateData });
      mirrored.push({ type: entry.type, fields: JSON.parse(entry.data) });
    });
    const created = new Date('2026-01-02T03:04:05.000Z');
    await invokeTool(lookup, { name: 'env-token-5a7c1e', password: 'hunter2-pw' }, { session });
    session.dispatch(
      new Exported({ sessionId: session.sessionId, createdAt: created, rows: ['a'] }),
    );
    session.privateData.add('patients', 'secret');
    await invokeTool(lookup, { name: 'ann', password: 'hunter2-pw' }, { session });
    session.dispatch(
      new Exported({ sessionId: session.sessionId, createdAt: created, rows: ['b'] }),
    );
    await trace.close();

    const recorded = (await readTrace(file)).records
      .filter((record): record is TraceEventRecord => record.kind === 'event')
      .map((record) => ({ type: record.type, fields: record.fields }));
    expect(mirrored).toEqual(recorded);
    const text = JSON.stringify(mirrored);
    for (const secret of ['env-token-5a7c1e', 'hunter2-pw', '987654321']) {
      expect(text).not.toContain(secret);
    }
    const calls = mirrored.filter((entry) => entry.type === 'ToolInvoked');
    expect(calls[1]?.fields).toMatchObject({
      params: { name: 'ann', password: '***' },
      result: { success: true, withheld: 'private-data' },
    });
    expect(mirrored.at(-1)?.fields).toEqual({
      sessionId: session.sessionId,
      createdAt: created.toISOString(),
      withheld: 'private-data',
    });
  });

  it('keeps private results when asked, still masking secrets', async () => {
    const session = new Session();
    const mask = traceEventMask({ servers, includePrivateResults: true });
    const mirrored: unknown[] = [];
    session.bus.subscribeAll((event) => {
      mirrored.push(JSON.parse(mask(event, { hasPrivateData: true }).data));
    });
    await invokeTool(lookup, { name: 'ann', password: 'hunter2-pw' }, { session });
    expect(mirrored[0]).toMatchObject({
      params: { name: 'ann', password: '***' },
      result: { value: { record: 'SSN 123-45-6789 of ann', account: '***' } },
    });
  });
});
