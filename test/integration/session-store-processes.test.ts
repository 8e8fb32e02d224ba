/**
 * Sessions that outlive a process, with real processes: a worker escalates
 * and exits, ten workers race, a worker is killed right after an escalating
 * MCP call returned. Against both stores.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DataSensitivity, sensitivityRank } from '../../src/core/sensitivity.js';
import { Session } from '../../src/runtime/session.js';
import { startRedis, type TestRedis } from '../fixtures/sessions/redis.js';
import { runWorker, startWorker } from '../fixtures/sessions/run-worker.js';
import { openStore, type StoreSpec } from '../fixtures/sessions/stores.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';

let redis: TestRedis;
let directory: string;
let before: number[];

beforeAll(async () => {
  before = childPids();
  directory = await mkdtemp(path.join(tmpdir(), 'mcp-sections-sessions-'));
  redis = await startRedis();
});

afterAll(async () => {
  await redis?.dispose();
  await rm(directory, { recursive: true, force: true });
  expect(await expectNoNewChildren(before)).toEqual([]);
});

const kinds = ['file', 'redis'] as const;

function specOf(kind: (typeof kinds)[number]): StoreSpec {
  return kind === 'file'
    ? { kind: 'file', directory }
    : { kind: 'redis', url: redis.url, keyPrefix: `it-${randomUUID()}` };
}

describe.each(kinds)('%s store across processes', (kind) => {
  it('resumes in this process a session another process escalated, and the other way round', async () => {
    const spec = specOf(kind);
    const sessionId = `conv-${randomUUID()}`;
    expect(
      await runWorker('escalate', {
        store: spec,
        sessionId,
        datasets: [
          ['payroll', 'secret'],
          ['wiki', 'internal'],
        ],
        slice: { name: 'notes', value: { text: 'from the worker' } },
      }),
    ).toEqual({ sensitivity: 'secret' });

    const store = openStore(spec);
    try {
      const resumed = await Session.open({ sessionId, store });
      expect(resumed.privateData.sensitivity).toBe('secret');
      expect(Object.fromEntries(resumed.privateData.datasets)).toEqual({
        payroll: 'secret',
        wiki: 'internal',
      });
      expect(resumed.slice('notes', { initial: null, persistent: true }).get()).toEqual({
        text: 'from the worker',
      });

      const here = await Session.open({ sessionId: `${sessionId}-b`, store });
      here.privateData.add('crm', 'confidential');
      here.slice('notes', { initial: ['from the test'], persistent: true });
      await here.flush();
    } finally {
      await store.close();
    }
    expect(await runWorker('read', { store: spec, sessionId: `${sessionId}-b` })).toEqual({
      sensitivity: 'confidential',
      datasets: { crm: 'confidential' },
      notes: ['from the test'],
    });
  });

  it('never ends below the highest escalation when ten workers escalate and restore at random', async () => {
    const spec = specOf(kind);
    const sessionId = `shared-${randomUUID()}`;
    const outputs = (await Promise.all(
      Array.from({ length: 10 }, (_, worker) =>
        runWorker('churn', { store: spec, sessionId, worker, rounds: 16, seed: 1_000 + worker }),
      ),
    )) as { added: Record<string, DataSensitivity>; sensitivity: DataSensitivity }[];

    const added = Object.assign({}, ...outputs.map((output) => output.added)) as Record<
      string,
      DataSensitivity
    >;
    expect(Object.keys(added).length).toBeGreaterThan(50);
    const highest = Object.values(added).reduce(
      (max, level) => (sensitivityRank(level) > sensitivityRank(max) ? level : max),
      'public' as DataSensitivity,
    );
    const store = openStore(spec);
    try {
      const stored = await store.readPrivateData(sessionId);
      expect(stored.privateData.datasets).toEqual(added);
      expect(stored.privateData.sensitivity).toBe(highest);
      for (const output of outputs) {
        expect(sensitivityRank(output.sensitivity)).toBeLessThanOrEqual(
          sensitivityRank(stored.privateData.sensitivity),
        );
      }
    } finally {
      await store.close();
    }
  }, 60_000);

  it('has the escalation in the store when a worker is killed right after the call returned', async () => {
    const spec = specOf(kind);
    const sessionId = `killed-${randomUUID()}`;
    const worker = startWorker('call-and-hang', {
      store: spec,
      sessionId,
      dataset: 'ledger',
      sensitivity: 'secret',
    });
    try {
      expect(await worker.firstLine).toEqual({
        success: true,
        message: expect.stringContaining('loaded ledger') as unknown,
      });
    } finally {
      worker.child.kill('SIGKILL');
    }
    expect((await worker.exited).signal).toBe('SIGKILL');

    const store = openStore(spec);
    try {
      const resumed = await Session.open({ sessionId, store });
      expect(resumed.privateData.sensitivity).toBe('secret');
      expect(resumed.privateData.datasets.get('ledger')).toBe('secret');
    } finally {
      await store.close();
    }
  });
});
