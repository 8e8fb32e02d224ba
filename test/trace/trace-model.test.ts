import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  PolicyDecision,
  Session,
  Tool,
  ToolResult,
  TraceRecorder,
  invokeTool,
  readTrace,
} from '../../src/index.js';
import { buildTraceModel, type TraceModel } from '../../src/trace/trace-model.js';
import { recordRealRun, type RecordedRun } from './real-run.js';

let dir: string;
let run: RecordedRun;
let model: TraceModel;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'trace-model-'));
  run = await recordRealRun(path.join(dir, 'run.jsonl'));
  model = buildTraceModel(await readTrace(run.path));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('buildTraceModel on a recorded run against server-everything', () => {
  it('lists every call in order with the outcome it had', () => {
    expect(model.sessionId).toBe(run.sessionId);
    expect(model.calls.map((call) => [call.tool, call.outcome])).toEqual(
      run.calls.map((call) => [call.tool, call.outcome]),
    );
  });

  it('gives each failed call its reason, and the timed-out call its timeout event', () => {
    const refused = model.calls.filter((call) => call.outcome === 'refused');
    expect(refused.map((call) => call.reason)).toEqual([
      expect.stringMatching(/^invalid arguments for tool "everything_get-sum": a: /),
      expect.stringMatching(/^tool "everything_echo" is blocked: it has the "connect" permission/),
    ]);
    const timedOut = model.calls.find((call) => call.outcome === 'timed-out')!;
    const related = timedOut.related.map((seq) => model.events.find((e) => e.seq === seq)?.type);
    expect(related).toContain('McpToolTimedOut');
    expect(timedOut.durationMs).toBeGreaterThanOrEqual(300);
    expect(model.calls.find((call) => call.outcome === 'rolled-back')?.reason).toBe(
      'cannot keep "fail now"',
    );
  });

  it('shows the rise to confidential and the call during which it happened', () => {
    expect(model.sensitivity.initial).toBe('public');
    const [step, ...more] = model.sensitivity.steps;
    expect(more).toEqual([]);
    expect(step).toMatchObject({
      previous: 'public',
      level: 'confidential',
      dataset: 'everything.get-tiny-image',
    });
    const call = model.calls.find((candidate) => candidate.seq === step?.callSeq);
    expect(call?.tool).toBe('everything_get-tiny-image');
    // Calls before it returned at public, the ones from it on at confidential.
    const levels = model.calls.map((candidate) => candidate.sensitivity);
    const first = levels.indexOf('confidential');
    expect(model.calls[first]?.tool).toBe('everything_get-tiny-image');
    expect(levels.slice(first).every((level) => level === 'confidential')).toBe(true);
  });

  it('diffs a render against the previous render of the same prompt', () => {
    const [first, second] = model.renders;
    expect(first?.diff).toBeUndefined();
    expect(second?.previousSeq).toBe(first?.seq);
    expect(second?.diff?.filter((line) => !line.startsWith(' '))).toEqual([
      '-Do this: add two numbers',
      '+Do this: describe the image',
    ]);
  });

  it('lists the servers with their tools, and the unreachable one with its reason', () => {
    const byName = new Map(model.servers.map((server) => [server.name, server]));
    expect(byName.get('everything')).toMatchObject({ status: 'connected', transport: 'stdio' });
    expect(
      byName
        .get('everything')
        ?.tools.map((tool) => tool.name)
        .sort(),
    ).toEqual([
      'everything_echo',
      'everything_get-env',
      'everything_get-sum',
      'everything_get-tiny-image',
    ]);
    expect(byName.get('remote')).toMatchObject({
      status: 'unavailable',
      transport: 'streamable-http',
      reason: expect.stringContaining('cannot connect') as unknown,
    });
  });

  it('keeps the slice states, and leaves them out after the escalation', () => {
    expect(model.snapshots.map((snapshot) => snapshot.slices)).toContainEqual({
      notes: { entries: ['kept'] },
    });
    expect(JSON.stringify(model.snapshots)).not.toContain('fail now');
  });

  it('says that results were left out', () => {
    expect(model.notes.join(' ')).toContain('left out');
  });
});

describe('buildTraceModel on damaged traces', () => {
  it('counts lines that are not records and says when older parts are gone', async () => {
    const file = path.join(dir, 'damaged.jsonl');
    const header = {
      kind: 'header',
      trace: 'mcp-sections',
      version: 1,
      sessionId: 's',
      at: '2026-01-01T00:00:00.000Z',
      part: 2,
      sensitivity: 'internal',
      privateResults: true,
    };
    await writeFile(file, `${JSON.stringify(header)}\n{"kind":"event","seq":1,"at"\nnot json\n`);
    const damaged = buildTraceModel(await readTrace(file));
    expect(damaged.notes).toEqual([
      'The oldest part of this trace was rotated away: it starts after the run began.',
      '2 line(s) were not trace records and were skipped.',
    ]);
    expect(damaged.sensitivity.initial).toBe('internal');
  });

  it('refuses a file that is not a trace, naming it', async () => {
    const file = path.join(dir, 'other.jsonl');
    await writeFile(file, '{"hello":"world"}\n');
    await expect(readTrace(file)).rejects.toMatchObject({
      code: 'trace-read',
      message: `${JSON.stringify(file)} is not an mcp-sections trace: its first line is not a trace header (record with TraceRecorder)`,
    });
  });

  it('shows a call a policy denied as refused, with the denial as its reason', async () => {
    const file = path.join(dir, 'denied.jsonl');
    const session = new Session();
    const recorder = new TraceRecorder(session, { path: file });
    const pay = Tool.create({
      name: 'pay',
      description: 'Pays',
      params: z.object({}),
      handler: () => ToolResult.ok(null, 'paid'),
    });
    const never = { name: 'never-pay', check: () => PolicyDecision.deny('payments are off') };
    const result = await invokeTool(pay, {}, { session, policies: [never] });
    expect(result.success).toBe(false);
    await recorder.close();
    const [call] = buildTraceModel(await readTrace(file)).calls;
    expect(call).toMatchObject({ tool: 'pay', outcome: 'refused' });
    expect(call?.reason).toContain('payments are off');
  });
});
