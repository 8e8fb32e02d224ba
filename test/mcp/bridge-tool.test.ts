/**
 * bridgeTool on its own: one MCP tool as a library Tool. Bad arguments and
 * refused tools never reach the server; results map to ToolResult; a
 * sensitive tool raises the session only when it succeeds.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { invokeTool, McpToolProgress, Session, ToolInvoked } from '../../src/index.js';
import { bridgeTool } from '../../src/mcp/bridge-tool.js';
import { DEFAULT_RETRY } from '../../src/mcp/retry-policy.js';
import { FileSessionStore } from '../../src/runtime/store/file-session-store.js';
import type { ServerRoute } from '../../src/mcp/server-route.js';
import { rawToolServer, type RawTool } from '../support/mcp-fixtures.js';
import { handMadeRoute } from '../support/quiet-route-listener.js';

const routes: ServerRoute[] = [];
afterEach(async () => {
  await Promise.all(routes.splice(0).map((route) => route.close()));
});

async function bridged(
  tools: readonly RawTool[],
  extra: Record<string, unknown> = {},
  session = new Session(),
) {
  const raw = rawToolServer(tools);
  const route = handMadeRoute({
    name: 'srv',
    transport: { type: 'in-memory', server: raw.server },
    ...extra,
  });
  routes.push(route);
  await route.connect();
  const byName = new Map(
    route.tools.map((description) => [
      description.name,
      bridgeTool(description, `srv_${description.name}`, {
        session,
        route,
        retry: DEFAULT_RETRY,
        reaches: new Map(),
        listedWhilePrivate: false,
        masker: route.redactor,
      }),
    ]),
  );
  return { raw, route, session, tool: (name: string) => byName.get(name)! };
}

const numberArgs = {
  type: 'object',
  properties: { count: { type: 'integer', minimum: 1 } },
  required: ['count'],
};

describe('bridgeTool', () => {
  it('refuses bad arguments with the field, the rule and the value, before the server', async () => {
    const { raw, session, tool } = await bridged([{ name: 'take', inputSchema: numberArgs }]);
    const result = await invokeTool(tool('take'), { count: 'ten' }, { session });
    expect(result.success).toBe(false);
    expect(result.message).toContain(
      'count: "count" must be an integer; received a string ("ten")',
    );
    expect(raw.calls).toEqual([]);
    expect((await invokeTool(tool('take'), { count: 2 }, { session })).success).toBe(true);
    expect(raw.callsTo('take')).toHaveLength(1);
  });

  it('refuses a network-capable tool once the session holds private data, before the server', async () => {
    const { raw, session, tool } = await bridged([
      { name: 'fetch', inputSchema: { type: 'object' }, annotations: { openWorldHint: true } },
      { name: 'local', inputSchema: { type: 'object' }, annotations: { openWorldHint: false } },
    ]);
    session.privateData.add('records', 'confidential');
    const refused = await invokeTool(tool('fetch'), {}, { session });
    expect(refused.success).toBe(false);
    expect(refused.message).toContain('blocked');
    expect(raw.callsTo('fetch')).toEqual([]);
    expect((await invokeTool(tool('local'), {}, { session })).success).toBe(true);
  });

  it('maps isError to a failure with the server text, and keeps structuredContent', async () => {
    const { session, tool } = await bridged([
      {
        name: 'broken',
        inputSchema: { type: 'object' },
        handler: () => ({ isError: true, content: [{ type: 'text', text: 'disk full' }] }),
      },
      {
        name: 'data',
        inputSchema: { type: 'object' },
        handler: () => ({
          content: [{ type: 'text', text: '{"n":1}' }],
          structuredContent: { n: 1 },
        }),
      },
    ]);
    const failed = await invokeTool(tool('broken'), {}, { session });
    expect(failed.success).toBe(false);
    expect(failed.message).toContain('disk full');
    const ok = await invokeTool(tool('data'), {}, { session });
    expect(ok.success).toBe(true);
    expect(ok.value).toMatchObject({ structuredContent: { n: 1 } });
  });

  it('raises the session for a sensitive tool only when the call succeeds', async () => {
    let fail = true;
    const { session, tool } = await bridged(
      [
        {
          name: 'load',
          inputSchema: { type: 'object' },
          annotations: { openWorldHint: false },
          handler: () =>
            fail
              ? { isError: true, content: [{ type: 'text', text: 'no' }] }
              : { content: [{ type: 'text', text: 'rows' }] },
        },
      ],
      { sensitiveTools: { load: 'secret' } },
    );
    await invokeTool(tool('load'), {}, { session });
    expect(session.privateData.sensitivity).toBe('public');
    fail = false;
    await invokeTool(tool('load'), {}, { session });
    expect(session.privateData.sensitivity).toBe('secret');
  });
});

describe('bridgeTool asks for progress only when something observes it', () => {
  /** A tool that records the progress token of each request and reports progress on it. */
  function progressTool(tokens: unknown[]): RawTool {
    return {
      name: 'work',
      inputSchema: { type: 'object' },
      handler: async (_args, extra) => {
        const token = extra._meta?.progressToken;
        tokens.push(token);
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: 1, total: 1 },
          });
        }
        return { content: [{ type: 'text', text: 'done' }] };
      },
    };
  }

  it('sends no progress token when nothing observes McpToolProgress', async () => {
    const tokens: unknown[] = [];
    const { session, tool } = await bridged([progressTool(tokens)]);
    expect((await invokeTool(tool('work'), {}, { session })).success).toBe(true);
    expect(tokens).toEqual([undefined]);
  });

  it('sends one, and publishes the progress, once a subscriber listens (and not after it leaves)', async () => {
    const tokens: unknown[] = [];
    const { session, tool } = await bridged([progressTool(tokens)]);
    const seen: McpToolProgress[] = [];
    const off = session.bus.subscribe(McpToolProgress, (event) => seen.push(event));
    const result = await invokeTool(tool('work'), {}, { session });
    expect(result.success).toBe(true);
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toBeDefined();
    expect(seen).toMatchObject([{ toolName: 'srv_work', originalName: 'work', progress: 1 }]);
    off();
    await invokeTool(tool('work'), {}, { session });
    expect(tokens[1]).toBeUndefined();
  });

  it('sends one when a catch-all subscriber listens', async () => {
    const tokens: unknown[] = [];
    const { session, tool } = await bridged([progressTool(tokens)]);
    session.bus.subscribeAll(() => undefined);
    await invokeTool(tool('work'), {}, { session });
    expect(tokens[0]).toBeDefined();
  });

  it('sends one when a reducer consumes McpToolProgress, with no subscriber on the bus', async () => {
    const tokens: unknown[] = [];
    const { session, tool } = await bridged([progressTool(tokens)]);
    const other = session.slice('other', { initial: { n: 0 } });
    other.on(ToolInvoked, (draft) => void (draft.n += 1));
    await invokeTool(tool('work'), {}, { session });
    expect(tokens[0]).toBeUndefined(); // a reducer of another event does not count
    const ticks = session.slice('ticks', { initial: { n: 0 } });
    ticks.on(McpToolProgress, (draft) => void (draft.n += 1));
    await invokeTool(tool('work'), {}, { session });
    expect(tokens[1]).toBeDefined();
    expect(ticks.get().n).toBe(1);
  });

  it('sends one when the server config sets maxTotalTimeoutMs, so progress keeps the call alive', async () => {
    const tokens: unknown[] = [];
    const { session, tool } = await bridged([progressTool(tokens)], { maxTotalTimeoutMs: 5_000 });
    await invokeTool(tool('work'), {}, { session });
    expect(tokens[0]).toBeDefined();
  });
});

describe('bridgeTool and the call scope', () => {
  /** A tool whose in-process handler reports the call running in the client's async context. */
  function scopeProbe(session: Session, seen: (string | undefined)[], tokens: unknown[]): RawTool {
    return {
      name: 'probe',
      inputSchema: { type: 'object' },
      annotations: { openWorldHint: false },
      handler: async (_args, extra) => {
        seen.push(session.currentCall()?.callId);
        tokens.push(extra._meta?.progressToken);
        if (extra._meta?.progressToken !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: extra._meta.progressToken, progress: 1 },
          });
        }
        return { content: [{ type: 'text', text: 'probed' }] };
      },
    };
  }

  it('runs a call that asks for no progress in no scope: it writes nothing of its own', async () => {
    const session = new Session();
    const seen: (string | undefined)[] = [];
    const tokens: unknown[] = [];
    const { tool } = await bridged([scopeProbe(session, seen, tokens)], {}, session);
    const result = await invokeTool(tool('probe'), {}, { session });
    expect(result.success).toBe(true);
    expect(seen).toEqual([undefined]);
    expect(tokens).toEqual([undefined]);
  });

  it('runs a call whose progress is observed in its own scope, and its progress reducers are its writes', async () => {
    const session = new Session();
    const seen: (string | undefined)[] = [];
    const tokens: unknown[] = [];
    const { tool } = await bridged([scopeProbe(session, seen, tokens)], {}, session);
    const ticks = session.slice('ticks', { initial: { n: 0 } });
    ticks.on(McpToolProgress, (draft) => void (draft.n += 1));
    const callIds: string[] = [];
    session.bus.subscribe(ToolInvoked, (event) => callIds.push(event.callId));
    expect((await invokeTool(tool('probe'), {}, { session })).success).toBe(true);
    expect(seen).toEqual(callIds);
    expect(tokens[0]).toBeDefined();
    expect(ticks.get().n).toBe(1);
  });

  it('asks for no progress when observing began after the call started without a scope', async () => {
    const session = new Session();
    const seen: (string | undefined)[] = [];
    const tokens: unknown[] = [];
    const { tool, route } = await bridged([scopeProbe(session, seen, tokens)], {}, session);
    // The call starts with nothing observing progress, then waits for a reconnect.
    const reconnecting = route.active.reconnect();
    const calling = invokeTool(tool('probe'), {}, { session });
    const ticks = session.slice('ticks', { initial: { n: 0 } });
    ticks.on(McpToolProgress, (draft) => void (draft.n += 1));
    await reconnecting;
    expect((await calling).success).toBe(true);
    expect(seen).toEqual([undefined]);
    expect(tokens).toEqual([undefined]);
    expect(ticks.get().n).toBe(0);
  });
});

describe('bridgeTool with a deadline', () => {
  it('makes the MCP call no longer than the time left, however long the server timeout', async () => {
    const { session, tool } = await bridged(
      [
        {
          name: 'slow',
          inputSchema: { type: 'object' },
          annotations: { openWorldHint: false, readOnlyHint: false },
          handler: () => new Promise(() => undefined),
        },
      ],
      { timeoutMs: 60_000 },
    );
    const deadline = new Date(Date.now() + 200);
    const result = await invokeTool(tool('slow'), {}, { session, deadline });
    expect(result.success).toBe(false);
    // Ended by whichever comes first, the request's shortened timeout or the deadline's
    // signal: either way the message names the deadline.
    expect(result.message).toContain(deadline.toISOString());
    const limit = /timed out after (\d+) ms/.exec(result.message)?.[1];
    if (limit !== undefined) expect(Number(limit)).toBeLessThanOrEqual(200);
  });
});

describe('a connection that throws instead of rejecting', () => {
  let directory: string | undefined;
  afterEach(async () => {
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
    directory = undefined;
  });

  async function throwingCall(session: Session) {
    const { route, tool } = await bridged([{ name: 'take', inputSchema: numberArgs }], {}, session);
    const connection = route.active;
    let sends = 0;
    connection.callTool = () => {
      sends += 1;
      throw new Error('the transport broke');
    };
    const result = await invokeTool(tool('take'), { count: 1 }, { session });
    return { result, route, sends };
  }

  it('fails the call with its server named and nothing left in flight', async () => {
    const { result, route, sends } = await throwingCall(new Session());
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/^tool "take" of server "srv" failed: the transport broke/);
    expect(route.inflight).toBe(0);
    expect(sends).toBeLessThanOrEqual(2);
  });

  it('does the same after syncing with a store, and retries no more than once', async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'mcp-sections-bridge-'));
    const session = await Session.open({
      sessionId: 'conv',
      store: new FileSessionStore({ directory }),
    });
    const fast = await throwingCall(new Session());
    const { result, route, sends } = await throwingCall(session);
    expect(result.message).toBe(fast.result.message);
    expect(route.inflight).toBe(0);
    expect(sends).toBe(fast.sends);
  });
});
