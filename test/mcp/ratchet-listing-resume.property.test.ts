/**
 * The ratchet while tool lists change and a session is resumed, under any
 * order fast-check's scheduler picks for: `tools/list_changed` on the normal
 * and the isolated endpoint (the server adds, removes and re-annotates tools,
 * among them open-world ones and one that only the isolated endpoint ever
 * lists; the notification and the listing it asks for are both delivered when
 * the scheduler says), calls (invokeTool with a tool looked up now or one
 * handed out earlier, the session's pool, `section.execute`), escalations,
 * dropped connections, health checks, and a second section on a session
 * resumed from a FileSessionStore.
 *
 * Checked where each `tools/call` reaches a server's transport (the moment the
 * client wrote it), against the level of the session that sent it:
 * - no open-world call reaches a server without isolation once the session
 *   holds private data;
 * - no call reaches an isolated server's normal deployment from its threshold
 *   (confidential) on, and no declared network tool reaches either deployment
 *   once the session holds private data;
 * - the tool only the isolated endpoint lists never reaches any server;
 * - a resumed session sends nothing before its stored level is back, and
 *   never an open-world call to a server without isolation.
 * Afterwards no promise was rejected unhandled and every server instance and
 * connection is closed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type DataSensitivity,
  FileSessionStore,
  invokeTool,
  McpConnectionPool,
  McpHealthMonitor,
  McpIntegrationSection,
  McpToolsChanged,
  Session,
  sensitivityRank,
  type Tool,
} from '../../src/index.js';

type ServerName = 'plain' | 'iso';
type Deployment = 'plain' | 'iso-normal' | 'iso-isolated';
type Owner = 'first' | 'resumed';
type Via = 'invoke' | 'stale' | 'pool' | 'execute';
type Level = 'internal' | 'confidential';

/** Tools a server adds and removes (or, for `flip`, re-annotates) as the run goes. */
type Changing = 'dyn_open' | 'dyn_connect' | 'dyn_closed' | 'flip' | 'iso_only';

type Step =
  | {
      readonly kind: 'change';
      readonly target: Deployment | 'iso-both';
      readonly tool: Changing;
    }
  | {
      readonly kind: 'call';
      readonly owner: Owner;
      readonly server: ServerName;
      readonly tool: string;
      readonly via: Via;
    }
  | { readonly kind: 'escalate'; readonly level: Level }
  | { readonly kind: 'drop'; readonly target: Deployment }
  | { readonly kind: 'restart'; readonly target: Deployment; readonly tool: Changing }
  | { readonly kind: 'health' }
  | { readonly kind: 'resume' };

/** How the second section's session comes back from the store. */
interface Resume {
  /** `stored`: a session escalated and flushed before the run; `self`: the first session's own id, flushed at the step. */
  readonly from: 'stored' | 'self';
  readonly level: 'internal' | 'confidential' | 'secret';
  /** `open`: `await Session.open(...)`; `construct`: `new Session(...)`, its store still loading when the section connects. */
  readonly open: 'open' | 'construct';
}

const UNANNOTATED: ToolAnnotations = {};
const CLOSED: ToolAnnotations = { openWorldHint: false };
const CONNECT: ToolAnnotations = { openWorldHint: true };

/** Each tool's annotations when present; `flip` alternates between closed and unannotated. */
const ANNOTATIONS: Readonly<Record<string, ToolAnnotations>> = {
  read_doc: CLOSED,
  lookup: CLOSED,
  fetch_page: UNANNOTATED,
  post_hook: CONNECT,
  dyn_open: UNANNOTATED,
  dyn_connect: CONNECT,
  dyn_closed: CLOSED,
  iso_only: CLOSED,
};

const INITIAL: Readonly<Record<Deployment, Readonly<Record<string, ToolAnnotations>>>> = {
  plain: { read_doc: CLOSED, fetch_page: UNANNOTATED, flip: CLOSED },
  'iso-normal': { lookup: CLOSED, fetch_page: UNANNOTATED, post_hook: CONNECT, flip: CLOSED },
  'iso-isolated': { lookup: CLOSED, fetch_page: UNANNOTATED, post_hook: CONNECT, flip: CLOSED },
};

const TOOLS_OF: Readonly<Record<ServerName, readonly string[]>> = {
  plain: ['read_doc', 'fetch_page', 'dyn_open', 'dyn_connect', 'dyn_closed', 'flip'],
  iso: [
    'lookup',
    'fetch_page',
    'post_hook',
    'dyn_open',
    'dyn_connect',
    'dyn_closed',
    'flip',
    'iso_only',
  ],
};

const openWorld = (annotations: ToolAnnotations | undefined): boolean =>
  annotations?.openWorldHint !== false;

const serverName = fc.constantFrom<ServerName>('plain', 'iso');

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.record({
        kind: fc.constant('change' as const),
        target: fc.constantFrom<Deployment | 'iso-both'>(
          'plain',
          'iso-normal',
          'iso-isolated',
          'iso-both',
        ),
        tool: fc.constantFrom<Changing>('dyn_open', 'dyn_connect', 'dyn_closed', 'flip'),
      }),
      fc.record({
        kind: fc.constant('change' as const),
        target: fc.constant('iso-isolated' as const),
        tool: fc.constant('iso_only' as const),
      }),
    ),
  },
  {
    weight: 5,
    arbitrary: serverName.chain((server) =>
      fc.record({
        kind: fc.constant('call' as const),
        owner: fc.constantFrom<Owner>('first', 'resumed'),
        server: fc.constant(server),
        tool: fc.constantFrom(...TOOLS_OF[server]),
        via: fc.constantFrom<Via>('invoke', 'stale', 'pool', 'execute'),
      }),
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('escalate' as const),
      level: fc.constantFrom<Level>('internal', 'confidential'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('drop' as const),
      target: fc.constantFrom<Deployment>('plain', 'iso-normal', 'iso-isolated'),
    }),
  },
  {
    // A new version of a deployment: it goes down and comes back with a changed tool
    // set, which the client learns by reconnecting, not by list_changed.
    weight: 1,
    arbitrary: fc.oneof(
      fc.record({
        kind: fc.constant('restart' as const),
        target: fc.constantFrom<Deployment>('plain', 'iso-normal', 'iso-isolated'),
        tool: fc.constantFrom<Changing>('dyn_open', 'dyn_connect', 'dyn_closed', 'flip'),
      }),
      fc.record({
        kind: fc.constant('restart' as const),
        target: fc.constant('iso-isolated' as const),
        tool: fc.constant('iso_only' as const),
      }),
    ),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'health' as const }) },
);

const resumeArbitrary: fc.Arbitrary<Resume | null> = fc.option(
  fc.record({
    from: fc.constantFrom<'stored' | 'self'>('stored', 'self'),
    level: fc.constantFrom<Resume['level']>('internal', 'confidential', 'secret'),
    open: fc.constantFrom<Resume['open']>('open', 'construct'),
  }),
  { freq: 3 },
);

/** One McpServer connected to one client connection, and the tools it registered. */
interface Instance {
  readonly mcp: McpServer;
  readonly registered: Map<string, RegisteredTool>;
  open: boolean;
}

/** What a server instance needs to know of the section that reaches it. */
interface OwnerView {
  readonly owner: Owner;
  readonly session: () => Session | undefined;
  readonly section: () => McpIntegrationSection | undefined;
  /** The level the session must be at from its first call on (a resumed session's stored level). */
  readonly floor: () => DataSensitivity;
}

interface Probe {
  /** While true, tools/list answers and list_changed notifications wait for the scheduler. */
  delaying: boolean;
  readonly violations: string[];
  readonly arrivals: Map<string, number>;
  readonly instances: Instance[];
}

/**
 * One deployment of a server: the tools it offers now, and every McpServer
 * instance serving one of its client connections. A change is applied to the
 * spec (for connections made later) and to every open instance, which sends
 * `tools/list_changed` to its client.
 */
class DeploymentSpec {
  readonly name: Deployment;
  readonly tools: Map<string, ToolAnnotations>;
  readonly live = new Set<Instance>();

  constructor(name: Deployment) {
    this.name = name;
    this.tools = new Map(Object.entries(INITIAL[name]));
  }

  /** Adds `tool` when absent, removes it when present; `flip` changes its annotations. */
  toggle(tool: Changing, live: ReadonlySet<Instance> = this.live): void {
    if (tool === 'flip') {
      const next = openWorld(this.tools.get('flip')) ? CLOSED : UNANNOTATED;
      this.tools.set('flip', next);
      for (const instance of live) instance.registered.get('flip')?.update({ annotations: next });
      return;
    }
    if (this.tools.has(tool)) {
      this.tools.delete(tool);
      for (const instance of live) {
        instance.registered.get(tool)?.remove();
        instance.registered.delete(tool);
      }
      return;
    }
    const annotations = ANNOTATIONS[tool] ?? UNANNOTATED;
    this.tools.set(tool, annotations);
    for (const instance of live) register(instance, this.name, tool, annotations);
  }

  /** Closes every open instance under its client (the client reconnects). */
  async drop(): Promise<void> {
    await Promise.all([...this.live].map((instance) => instance.mcp.close()));
  }

  /** Goes down, then serves a changed tool set to the clients that reconnect. */
  async restart(tool: Changing): Promise<void> {
    const closing = this.drop();
    this.toggle(tool, new Set());
    await closing;
  }

  /**
   * An in-memory endpoint for one owner: every connect makes a new McpServer
   * with the deployment's tools now, whose transport reports each tools/call
   * as it arrives and lets the scheduler deliver listings and list_changed.
   */
  endpoint(owner: OwnerView, scheduler: fc.Scheduler, probe: Probe) {
    const mine = new Set<Instance>();
    return {
      connect: async (transport: Transport): Promise<void> => {
        const mcp = new McpServer({ name: this.name, version: '1.0.0' });
        const instance: Instance = { mcp, registered: new Map(), open: true };
        for (const [tool, annotations] of this.tools) {
          register(instance, this.name, tool, annotations);
        }
        this.live.add(instance);
        mine.add(instance);
        probe.instances.push(instance);
        await mcp.connect(transport);
        const closed = transport.onclose;
        transport.onclose = () => {
          instance.open = false;
          this.live.delete(instance);
          mine.delete(instance);
          closed?.();
        };
        const listings = new Set<string | number>();
        const deliver = transport.onmessage;
        transport.onmessage = (message, extra) => {
          if ('method' in message && message.method === 'tools/list' && 'id' in message) {
            listings.add(message.id);
          }
          if ('method' in message && message.method === 'tools/call') {
            const params = message.params as { name?: unknown } | undefined;
            const tool = typeof params?.name === 'string' ? params.name : '?';
            arrived(probe, owner, this.name, tool, instance);
          }
          deliver?.(message, extra);
        };
        const send = transport.send.bind(transport);
        transport.send = (message: JSONRPCMessage, options) => {
          const listing =
            'id' in message &&
            message.id !== undefined &&
            !('method' in message) &&
            listings.delete(message.id);
          const changed =
            'method' in message && message.method === 'notifications/tools/list_changed';
          if (!probe.delaying || !(listing || changed)) return send(message, options);
          const label = `${owner.owner} ${this.name} ${changed ? 'list_changed' : 'tools/list answer'}`;
          // The client may be gone by the time the scheduler delivers: nothing to tell it then.
          return scheduler
            .schedule(Promise.resolve(), label)
            .then(() => send(message, options))
            .catch(() => undefined);
        };
      },
      close: async (): Promise<void> => {
        await Promise.all([...mine].map((instance) => instance.mcp.close()));
      },
    };
  }
}

function register(
  instance: Instance,
  deployment: Deployment,
  tool: string,
  annotations: ToolAnnotations,
): void {
  const registered = instance.mcp.registerTool(
    tool,
    { inputSchema: { q: z.string() }, annotations },
    () => ({ content: [{ type: 'text' as const, text: `${deployment}:${tool}` }] }),
  );
  instance.registered.set(tool, registered);
}

/** The invariants, at the moment the client wrote a tools/call to `deployment`. */
function arrived(
  probe: Probe,
  owner: OwnerView,
  deployment: Deployment,
  tool: string,
  instance: Instance,
): void {
  const key = `${owner.owner}:${deployment}`;
  probe.arrivals.set(key, (probe.arrivals.get(key) ?? 0) + 1);
  const session = owner.session();
  const current = session?.privateData.sensitivity ?? 'public';
  const floor = owner.floor();
  const level = sensitivityRank(current) >= sensitivityRank(floor) ? current : floor;
  const holds = level !== 'public';
  const at = `${owner.owner} session at ${current}${floor === 'public' ? '' : ` (stored ${floor})`}`;
  if (sensitivityRank(current) < sensitivityRank(floor)) {
    probe.violations.push(`${tool} reached ${deployment} before the stored level was back: ${at}`);
  }
  if (tool === 'iso_only') {
    const listing = instance.registered.has(tool) ? 'listed there' : 'not listed there now';
    probe.violations.push(
      `iso_only, which only the isolated endpoint lists, reached ${deployment} (${listing}): ${at}`,
    );
  }
  const listed = instance.registered.get(tool);
  if (deployment === 'plain' && holds) {
    // A tool whose annotation never changes counts as the server declares it. `flip`
    // counts as open-world only once the client's own listing says so too: a call
    // written before the listing of a change came back cannot know of it.
    const known = owner
      .section()
      ?.routes.find((route) => route.name === 'plain')
      ?.tools.find((candidate) => candidate.name === tool);
    const serverSays =
      listed === undefined ? openWorld(ANNOTATIONS[tool]) : openWorld(listed.annotations);
    const open =
      tool === 'flip'
        ? serverSays && known !== undefined && openWorld(known.annotations)
        : serverSays;
    if (open) probe.violations.push(`open-world ${tool} reached plain (no isolation): ${at}`);
  }
  if (deployment === 'iso-normal' && sensitivityRank(level) >= sensitivityRank('confidential')) {
    probe.violations.push(`${tool} reached iso's normal deployment: ${at}`);
  }
  if (deployment !== 'plain' && holds && (tool === 'post_hook' || tool === 'dyn_connect')) {
    probe.violations.push(`declared network tool ${tool} reached ${deployment}: ${at}`);
  }
}

/** A section over the three deployments, reached through `owner`'s own endpoints. */
function sectionFor(
  session: Session,
  deployments: Readonly<Record<Deployment, DeploymentSpec>>,
  owner: OwnerView,
  scheduler: fc.Scheduler,
  probe: Probe,
): McpIntegrationSection {
  const endpoint = (name: Deployment) =>
    deployments[name].endpoint(owner, scheduler, probe) as never;
  return new McpIntegrationSection({
    session,
    // The second section connects while servers may drop: a server lost during its
    // handshake is reported unavailable, and the others are used.
    onConnectError: 'report',
    reconnect: { attempts: 5, baseDelayMs: 1 },
    retry: { enabled: true, minDelayMs: 1, maxDelayMs: 2 },
    servers: [
      {
        name: 'plain',
        transport: { type: 'in-memory', server: endpoint('plain') },
        timeoutMs: 2_000,
      },
      {
        name: 'iso',
        transport: { type: 'in-memory', server: endpoint('iso-normal') },
        isolation: { transport: { type: 'in-memory', server: endpoint('iso-isolated') } },
        timeoutMs: 2_000,
      },
    ],
  });
}

/** A section's tools as handed out: the first object ever seen under each name is the stale one. */
class HandedOut {
  readonly #first = new Map<string, Tool>();

  note(section: McpIntegrationSection): void {
    for (const tool of section.tools())
      if (!this.#first.has(tool.name)) this.#first.set(tool.name, tool);
  }

  first(name: string): Tool | undefined {
    return this.#first.get(name);
  }
}

interface Totals {
  runs: number;
  listChanged: number;
  arrivals: Map<string, number>;
  refused: number;
  failClosed: number;
  resumedRuns: number;
  isoOnlyShown: number;
  /** The iso route's phase each time tools() offered iso_iso_only (shown to the model, not called). */
  isoOnlyShownIn: Map<string, number>;
}

describe('the ratchet while tool lists change and a session resumes, in any order', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'mcp-sections-ratchet-listing-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('lets no open-world, normal-deployment or isolated-only call out, and closes everything', async () => {
    const totals: Totals = {
      runs: 0,
      listChanged: 0,
      arrivals: new Map(),
      refused: 0,
      failClosed: 0,
      resumedRuns: 0,
      isoOnlyShown: 0,
      isoOnlyShownIn: new Map(),
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    let runIndex = 0;
    try {
      const property = fc.asyncProperty(
        fc.scheduler(),
        fc.array(step, { minLength: 4, maxLength: 14 }),
        resumeArbitrary,
        fc.boolean(),
        async (s, generated, resume, firstHasStore) => {
          runIndex += 1;
          totals.runs += 1;
          const steps: Step[] = resume === null ? generated : [...generated, { kind: 'resume' }];
          const probe: Probe = {
            delaying: false,
            violations: [],
            arrivals: new Map(),
            instances: [],
          };
          const deployments: Record<Deployment, DeploymentSpec> = {
            plain: new DeploymentSpec('plain'),
            'iso-normal': new DeploymentSpec('iso-normal'),
            'iso-isolated': new DeploymentSpec('iso-isolated'),
          };
          const stores: FileSessionStore[] = [];
          const storeNow = (): FileSessionStore => {
            const store = new FileSessionStore({ directory });
            stores.push(store);
            return store;
          };
          const firstId = `first-${String(runIndex)}`;
          const session = firstHasStore
            ? await Session.open({ sessionId: firstId, store: storeNow() })
            : new Session({ sessionId: firstId });

          // The escalated session the second section resumes, written by another "process".
          const storedId = `stored-${String(runIndex)}`;
          if (resume !== null && (resume.from === 'stored' || !firstHasStore)) {
            const writer = storeNow();
            const earlier = await Session.open({ sessionId: storedId, store: writer });
            earlier.privateData.add('patients', resume.level);
            await earlier.flush();
          }

          let section2: McpIntegrationSection | undefined;
          let session2: Session | undefined;
          let floor2: DataSensitivity = 'public';
          const first: OwnerView = {
            owner: 'first',
            session: () => session,
            section: () => section1,
            floor: () => 'public',
          };
          const second: OwnerView = {
            owner: 'resumed',
            session: () => session2,
            section: () => section2,
            floor: () => floor2,
          };
          const section1 = sectionFor(session, deployments, first, s, probe);
          const handedOut: Record<Owner, HandedOut> = {
            first: new HandedOut(),
            resumed: new HandedOut(),
          };
          let isoOnlyShown = false;
          const follow = (owner: Owner, on: Session, section: McpIntegrationSection): void => {
            on.bus.subscribe(McpToolsChanged, () => {
              totals.listChanged += 1;
              handedOut[owner].note(section);
              if (section.tools().some((tool) => tool.name === 'iso_iso_only')) {
                isoOnlyShown = true;
                const phase = section.routes.find((route) => route.name === 'iso')?.phase ?? '?';
                totals.isoOnlyShownIn.set(phase, (totals.isoOnlyShownIn.get(phase) ?? 0) + 1);
              }
            });
          };
          follow('first', session, section1);
          await section1.connect();
          handedOut.first.note(section1);
          probe.delaying = true;

          let resumed: (value: boolean) => void = () => undefined;
          const resumedReady = new Promise<boolean>((resolve) => {
            resumed = resolve;
          });
          if (resume === null) resumed(false);

          const resumeStep = async (): Promise<void> => {
            if (resume === null) return;
            let sessionId = storedId;
            if (resume.from === 'self' && firstHasStore) {
              // The first session's state as it stands, flushed as an application would.
              floor2 = session.privateData.sensitivity;
              await session.flush();
              sessionId = firstId;
            } else {
              floor2 = resume.level;
            }
            const store = storeNow();
            session2 =
              resume.open === 'open'
                ? await Session.open({ sessionId, store })
                : new Session({ sessionId, store });
            section2 = sectionFor(session2, deployments, second, s, probe);
            follow('resumed', session2, section2);
            try {
              await section2.connect();
              handedOut.resumed.note(section2);
            } finally {
              resumed(section2.group.ready);
            }
          };

          const call = async (next: Extract<Step, { kind: 'call' }>): Promise<unknown> => {
            let section: McpIntegrationSection = section1;
            let caller: Session = session;
            if (next.owner === 'resumed') {
              if (!(await resumedReady) || section2 === undefined || session2 === undefined) {
                return 'no resumed section';
              }
              section = section2;
              caller = session2;
            }
            const bridged = `${next.server}_${next.tool}`;
            const args = { q: 'x' };
            switch (next.via) {
              case 'invoke': {
                handedOut[next.owner].note(section);
                const tool = section.tools().find((candidate) => candidate.name === bridged);
                return tool === undefined ? 'absent' : invokeTool(tool, args, { session: caller });
              }
              case 'stale': {
                const tool = handedOut[next.owner].first(bridged);
                return tool === undefined ? 'absent' : invokeTool(tool, args, { session: caller });
              }
              case 'pool':
                return caller.resources
                  .get(McpConnectionPool)
                  ?.callTool(next.server, next.tool, args, { session: caller });
              case 'execute':
                return section.execute({ name: `${next.server}.${next.tool}`, arguments: args });
            }
          };

          const run = async (next: Step): Promise<unknown> => {
            switch (next.kind) {
              case 'change':
                if (next.target === 'iso-both') {
                  deployments['iso-normal'].toggle(next.tool);
                  deployments['iso-isolated'].toggle(next.tool);
                } else {
                  deployments[next.target].toggle(next.tool);
                }
                return undefined;
              case 'escalate':
                session.privateData.add(`records-${next.level}`, next.level);
                return undefined;
              case 'drop':
                return deployments[next.target].drop();
              case 'restart':
                return deployments[next.target].restart(next.tool);
              case 'health':
                return new McpHealthMonitor(section1, { timeoutMs: 1_000 }).check();
              case 'resume':
                return resumeStep();
              case 'call':
                return call(next);
            }
          };

          const pools = [session.resources.get(McpConnectionPool)];
          try {
            const done = steps.map((next) =>
              s.schedule(Promise.resolve(next), JSON.stringify(next)).then(run),
            );
            const settled = await s.waitFor(Promise.allSettled(done));
            probe.delaying = false;
            await s.waitIdle();
            for (const outcome of settled) {
              if (outcome.status === 'rejected') throw outcome.reason;
              const text = messageOf(outcome.value);
              if (text.includes('is blocked')) totals.refused += 1;
              if (text.includes('fail closed')) totals.failClosed += 1;
            }
            if (section2 !== undefined) totals.resumedRuns += 1;
            if (isoOnlyShown) totals.isoOnlyShown += 1;
            for (const [key, count] of probe.arrivals) {
              totals.arrivals.set(key, (totals.arrivals.get(key) ?? 0) + count);
            }
            expect(probe.violations, JSON.stringify({ steps, resume, firstHasStore })).toEqual([]);
          } finally {
            probe.delaying = false;
            if (session2 !== undefined) pools.push(session2.resources.get(McpConnectionPool));
            await Promise.all([section1.disconnect(), section2?.disconnect()]);
            // No write of a background flush may outlive its store (or the directory).
            await Promise.all([session.flush(), session2?.flush()]).catch(() => undefined);
            await Promise.all(stores.map((store) => store.close()));
          }
          // Everything is closed: the sections, every connection of their pools, every server instance.
          expect(section1.connected).toBe(false);
          expect(pools.map((pool) => pool?.size ?? 0)).toEqual(pools.map(() => 0));
          await new Promise((resolve) => setImmediate(resolve));
          expect(probe.instances.filter((instance) => instance.open)).toHaveLength(0);
          expect(unhandled).toEqual([]);
        },
      );
      // The coverage below is random: a round that missed a rare path is followed by
      // another (the property holds in every run either way), at most three in all.
      for (let round = 0; round < MAX_ROUNDS && (round === 0 || !covered(totals)); round++) {
        await fc.assert(property, { numRuns: 120 });
      }
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    // The property is not vacuous: lists changed, calls reached every deployment
    // from both sections, and the ratchet refused some.
    console.info('ratchet-listing-resume totals', {
      ...totals,
      arrivals: Object.fromEntries(totals.arrivals),
      isoOnlyShownIn: Object.fromEntries(totals.isoOnlyShownIn),
    });
    expect(coverage(totals)).toEqual(coverage(totals).map(([what]) => [what, true]));
  }, 120_000);
});

/** Rounds of 120 runs at most, while the coverage below is not reached. */
const MAX_ROUNDS = 3;

/** What the runs must have reached for the property not to be vacuous: each name, and whether it was. */
function coverage(totals: Totals): [string, boolean][] {
  const arrived = (key: string): number => totals.arrivals.get(key) ?? 0;
  return [
    ['a list changed', totals.listChanged > 0],
    ['the ratchet refused a call', totals.refused > 0],
    ['a session was resumed', totals.resumedRuns > 0],
    ['first:plain', arrived('first:plain') > 0],
    ['first:iso-normal', arrived('first:iso-normal') > 0],
    ['resumed:plain', arrived('resumed:plain') > 0],
    // Rarer (an escalation to the threshold, then a call while the endpoints match):
    // 3 to 10 in 80 runs, so counted over both sections.
    [
      'a call reached the isolated endpoint',
      arrived('first:iso-isolated') + arrived('resumed:iso-isolated') > 0,
    ],
  ];
}

function covered(totals: Totals): boolean {
  return coverage(totals).every(([, reached]) => reached);
}

/** The message of a step's outcome: a ToolResult's, or a pool result's text. */
function messageOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return '';
  if ('message' in value && typeof value.message === 'string') return value.message;
  if ('content' in value && Array.isArray(value.content)) {
    return value.content
      .map((part: unknown) =>
        typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '',
      )
      .join(' ');
  }
  return '';
}
