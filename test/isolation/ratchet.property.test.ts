/**
 * The ratchet under random sequences of what can happen in a session:
 * application code adding private data, snapshots and restores, failing
 * calls and calls whose result carries the private-data marker (succeeding
 * or failing). Whatever the order, the sensitivity never goes down, a server
 * that switched never switches back, and every call lands on the instance
 * the highest level reached so far says it should.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DATA_SENSITIVITY_LEVELS,
  McpIntegrationSection,
  McpSectionIsolated,
  Session,
  maxSensitivity,
  sensitivityRank,
  type DataSensitivity,
  type McpServerConfig,
  type SessionSnapshot,
} from '../../src/index.js';
import { call, collect } from '../fixtures/isolation/helpers.js';
import {
  CallCounter,
  answeredBy,
  createInstanceServer,
} from '../fixtures/isolation/instance-server.js';

/** Where each server switches: `alpha` at the default, `beta` only at secret. */
const THRESHOLDS = { alpha: 'confidential', beta: 'secret' } as const satisfies Record<
  string,
  DataSensitivity
>;
type ServerName = keyof typeof THRESHOLDS;
const SERVER_NAMES = Object.keys(THRESHOLDS) as ServerName[];

type Op =
  | { readonly kind: 'add'; readonly dataset: string; readonly level: DataSensitivity }
  | { readonly kind: 'snapshot' }
  | { readonly kind: 'restore'; readonly pick: number }
  | { readonly kind: 'whoami'; readonly server: ServerName }
  | { readonly kind: 'fail'; readonly server: ServerName }
  | {
      readonly kind: 'mark';
      readonly server: ServerName;
      readonly dataset: string;
      readonly level: DataSensitivity;
      readonly fail: boolean;
    };

const level = fc.constantFrom(...DATA_SENSITIVITY_LEVELS);
const server = fc.constantFrom(...SERVER_NAMES);
// A small pool of names, so that a dataset is sometimes re-added at another level.
const dataset = fc.constantFrom('orders', 'patients', 'payroll');

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), dataset, level }),
  fc.constant({ kind: 'snapshot' as const }),
  fc.record({ kind: fc.constant('restore' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('whoami' as const), server }),
  fc.record({ kind: fc.constant('fail' as const), server }),
  fc.record({ kind: fc.constant('mark' as const), server, dataset, level, fail: fc.boolean() }),
);

function serverConfig(name: ServerName): McpServerConfig {
  return {
    name,
    transport: { type: 'in-memory', server: createInstanceServer('normal', new CallCounter()) },
    isolation: {
      transport: { type: 'in-memory', server: createInstanceServer('isolated', new CallCounter()) },
      at: THRESHOLDS[name],
    },
  };
}

function shouldBeIsolated(name: ServerName, reached: DataSensitivity): boolean {
  return sensitivityRank(reached) >= sensitivityRank(THRESHOLDS[name]);
}

async function runScenario(ops: readonly Op[]): Promise<void> {
  const session = new Session();
  const switches = collect(session, McpSectionIsolated);
  const steps = session.slice('steps', { initial: { n: 0 } });
  const section = new McpIntegrationSection({
    session,
    servers: SERVER_NAMES.map(serverConfig),
  });
  await section.connect();
  // The model: the highest level ever added, and the slice value we expect.
  let reached: DataSensitivity = 'public';
  let expectedSteps = 0;
  const snapshots: { snapshot: SessionSnapshot; steps: number }[] = [];
  const seenIsolated = new Set<string>();
  const answeredIsolated = new Set<ServerName>();

  const expectAnswer = (name: ServerName, message: string): void => {
    const by = answeredBy(message);
    expect(by).toBe(shouldBeIsolated(name, reached) ? 'isolated' : 'normal');
    // Once a server's calls reached the isolated instance, every later one does.
    if (answeredIsolated.has(name)) expect(by).toBe('isolated');
    if (by === 'isolated') answeredIsolated.add(name);
  };

  try {
    for (const step of ops) {
      const rankBefore = sensitivityRank(session.privateData.sensitivity);
      steps.update((draft) => {
        draft.n += 1;
      });
      expectedSteps += 1;
      switch (step.kind) {
        case 'add':
          session.privateData.add(step.dataset, step.level);
          reached = maxSensitivity(reached, step.level);
          break;
        case 'snapshot':
          snapshots.push({ snapshot: session.snapshot(), steps: expectedSteps });
          break;
        case 'restore': {
          const chosen = snapshots[step.pick % Math.max(1, snapshots.length)];
          if (chosen === undefined) break;
          session.restore(chosen.snapshot);
          expectedSteps = chosen.steps;
          break;
        }
        case 'whoami': {
          const result = await call(section, `${step.server}_whoami`);
          expect(result.success).toBe(true);
          expectAnswer(step.server, result.message);
          break;
        }
        case 'fail': {
          const result = await call(section, `${step.server}_fail`);
          expect(result.success).toBe(false);
          expectAnswer(step.server, result.message);
          break;
        }
        case 'mark': {
          const result = await call(section, `${step.server}_load_dataset`, {
            dataset: step.dataset,
            sensitivity: step.level,
            fail: step.fail,
          });
          expect(result.success).toBe(!step.fail);
          // The call ran where the level before it said; the marker counts after.
          expectAnswer(step.server, result.message);
          reached = maxSensitivity(reached, step.level);
          break;
        }
      }

      // Restores (and rolled-back failures) move the slices...
      expect(steps.get().n).toBe(expectedSteps);
      // ...but never the sensitivity.
      expect(session.privateData.sensitivity).toBe(reached);
      expect(sensitivityRank(session.privateData.sensitivity)).toBeGreaterThanOrEqual(rankBefore);
      const isolatedNow = section.isolatedServers;
      for (const name of seenIsolated) expect(isolatedNow).toContain(name);
      for (const name of isolatedNow) seenIsolated.add(name);
      expect([...isolatedNow].sort()).toEqual(
        SERVER_NAMES.filter((name) => shouldBeIsolated(name, reached)),
      );
      expect(section.isolated).toBe(isolatedNow.length > 0);
      // One McpSectionIsolated per switched server, never a second one.
      expect(switches.map((event) => event.serverName).sort()).toEqual([...isolatedNow].sort());
    }
  } finally {
    await section.disconnect();
  }
}

describe('the isolation ratchet (property)', () => {
  it('never lowers the sensitivity and never switches a server back', async () => {
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), runScenario), {
      numRuns: 80,
    });
  });

  it('holds for a sequence that escalates through a failed call and then restores', async () => {
    // A fixed example of the interesting path, so it is always covered.
    await runScenario([
      { kind: 'snapshot' },
      { kind: 'whoami', server: 'alpha' },
      { kind: 'mark', server: 'alpha', dataset: 'orders', level: 'confidential', fail: true },
      { kind: 'whoami', server: 'alpha' },
      { kind: 'whoami', server: 'beta' },
      { kind: 'restore', pick: 0 },
      { kind: 'fail', server: 'alpha' },
      { kind: 'add', dataset: 'orders', level: 'secret' },
      { kind: 'restore', pick: 0 },
      { kind: 'whoami', server: 'beta' },
    ]);
  });
});
