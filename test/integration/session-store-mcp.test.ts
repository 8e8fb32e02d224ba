/**
 * The isolation ratchet across workers: an MCP section follows escalations
 * that another worker stored for the same session, and an escalation that
 * cannot be stored fails closed and is never dropped.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpSectionIsolated } from '../../src/mcp/events.js';
import { McpIntegrationSection } from '../../src/mcp/section.js';
import { Session } from '../../src/runtime/session.js';
import { RedisSessionStore } from '../../src/runtime/store/redis-session-store.js';
import type { SessionStore } from '../../src/runtime/store/session-store.js';
import { invokeTool } from '../../src/tools/invoke-tool.js';
import type { Tool } from '../../src/tools/tool.js';
import { ControlledStore } from '../fixtures/sessions/controlled-store.js';
import {
  answeredBy,
  startInstance,
  type RunningInstance,
} from '../fixtures/isolation/instance-server.js';
import { startRedis, type TestRedis } from '../fixtures/sessions/redis.js';
import { openStore, type StoreSpec } from '../fixtures/sessions/stores.js';
import { childPids, expectNoNewChildren, waitFor } from '../support/processes.js';

let redis: TestRedis;
let directory: string;
let before: number[];

beforeAll(async () => {
  before = childPids();
  directory = await mkdtemp(path.join(tmpdir(), 'mcp-sections-sessions-mcp-'));
  redis = await startRedis();
});

afterAll(async () => {
  await redis?.dispose();
  await rm(directory, { recursive: true, force: true });
  expect(await expectNoNewChildren(before)).toEqual([]);
});

interface Deployment {
  readonly normal: RunningInstance;
  readonly isolated: RunningInstance;
  readonly section: McpIntegrationSection;
  tool(name: string): Tool;
  close(): Promise<void>;
}

/** A section of `session` on a server with a normal and an isolated HTTP instance. */
async function deploy(session: Session): Promise<Deployment> {
  const [normal, isolated] = await Promise.all([
    startInstance('normal'),
    startInstance('isolated'),
  ]);
  const section = new McpIntegrationSection({
    session,
    servers: [
      {
        name: 'files',
        transport: { type: 'streamable-http', url: normal.url, sseFallback: false },
        isolation: {
          transport: { type: 'streamable-http', url: isolated.url, sseFallback: false },
          at: 'confidential',
        },
      },
    ],
    retry: { enabled: false },
  });
  try {
    await section.connect();
  } catch (error) {
    await Promise.all([normal.close(), isolated.close()]);
    throw error;
  }
  return {
    normal,
    isolated,
    section,
    tool(name) {
      const found = section.tools().find((tool) => tool.name === `files_${name}`);
      if (found === undefined) throw new Error(`files_${name} is not bridged`);
      return found;
    },
    async close() {
      await section.disconnect();
      await Promise.all([normal.close(), isolated.close()]);
    },
  };
}

const kinds = ['file', 'redis'] as const;

function specOf(kind: (typeof kinds)[number]): StoreSpec {
  return kind === 'file'
    ? { kind: 'file', directory }
    : { kind: 'redis', url: redis.url, keyPrefix: `mcp-${randomUUID()}` };
}

describe.each(kinds)('%s store: a section follows escalations of other workers', (kind) => {
  it('switches to the isolated endpoint on its next call after worker A escalated', async () => {
    const spec = specOf(kind);
    const sessionId = `shared-${randomUUID()}`;
    const storeB = new ControlledStore(openStore(spec));
    const storeA: SessionStore = openStore(spec);
    const workerB = await Session.open({ sessionId, store: storeB });
    const isolatedEvents: McpSectionIsolated[] = [];
    workerB.bus.subscribe(McpSectionIsolated, (event) => isolatedEvents.push(event));
    const deployment = await deploy(workerB);
    try {
      const whoami = deployment.tool('whoami');
      const first = await invokeTool(whoami, {}, { session: workerB });
      const second = await invokeTool(whoami, {}, { session: workerB });
      expect([answeredBy(first.message), answeredBy(second.message)]).toEqual(['normal', 'normal']);
      // Nothing changed: the connect and each call only asked for the version.
      expect(storeB.count('version')).toBe(3);
      expect(storeB.count('readPrivateData')).toBe(0);

      const workerA = await Session.open({ sessionId, store: storeA });
      workerA.privateData.add('hr', 'secret');
      await workerA.flush();
      expect(deployment.section.isolated).toBe(false);

      const third = await invokeTool(whoami, {}, { session: workerB });
      expect(third.success).toBe(true);
      expect(answeredBy(third.message)).toBe('isolated');
      expect(deployment.section.isolated).toBe(true);
      expect(workerB.privateData.sensitivity).toBe('secret');
      expect(isolatedEvents.map((event) => event.sensitivity)).toEqual(['secret']);
      expect(storeB.count('readPrivateData')).toBe(1);
      expect(deployment.normal.calls.count('whoami')).toBe(2);
      expect(deployment.isolated.calls.count('whoami')).toBe(1);
    } finally {
      await deployment.close();
      await Promise.all([storeA.close(), storeB.close()]);
    }
  });
});

describe('Redis stopped mid-session', () => {
  it('fails the escalating call closed, isolates locally, and records the escalation once Redis is back', async () => {
    const own = await startRedis();
    const sessionId = `outage-${randomUUID()}`;
    const store = new RedisSessionStore({ url: own.url, commandTimeoutMs: 2_000 });
    const session = await Session.open({ sessionId, store });
    const deployment = await deploy(session);
    try {
      const whoami = deployment.tool('whoami');
      expect(answeredBy((await invokeTool(whoami, {}, { session })).message)).toBe('normal');

      // Redis goes away while the call that escalates is on the server.
      deployment.normal.hooks.beforeLoad = () => own.stop();
      const escalating = await invokeTool(
        deployment.tool('load_dataset'),
        { dataset: 'ledger', sensitivity: 'secret' },
        { session },
      );
      expect(escalating.success).toBe(false);
      expect(escalating.message).toMatch(
        /tool "load_dataset" of server "files" ran, but the session store could not record the escalation to "secret"/,
      );
      expect(session.privateData.sensitivity).toBe('secret');
      expect(deployment.section.isolated).toBe(true);
      expect(session.hasPendingPrivateData).toBe(true);

      // While Redis is down no call is made: another worker's escalation could not be seen.
      const refused = await invokeTool(whoami, {}, { session });
      expect(refused.success).toBe(false);
      expect(refused.message).toMatch(/was not called: the session store could not be read/);
      expect(deployment.isolated.calls.count('whoami')).toBe(0);
      expect(session.hasPendingPrivateData).toBe(true);

      // Back on the same port, empty (no persistence): the next call records the escalation.
      await own.start();
      await waitFor(
        () =>
          store.version(sessionId).then(
            () => true,
            () => false,
          ),
        {
          timeoutMs: 10_000,
          description: 'the store client to reconnect',
        },
      );
      const after = await invokeTool(whoami, {}, { session });
      expect(after.success).toBe(true);
      expect(answeredBy(after.message)).toBe('isolated');
      expect(session.hasPendingPrivateData).toBe(false);

      const fresh = new RedisSessionStore({ url: own.url });
      try {
        const resumed = await Session.open({ sessionId, store: fresh });
        expect(resumed.privateData.sensitivity).toBe('secret');
        expect(resumed.privateData.datasets.get('ledger')).toBe('secret');
      } finally {
        await fresh.close();
      }
    } finally {
      await deployment.close();
      await store.close();
      await own.dispose();
    }
  });
});
