/**
 * McpIntegrationSection against the reference server-everything over stdio,
 * SSE and streamable HTTP: listing, results of every content kind, progress,
 * timeouts and cancellation.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import {
  McpIntegrationSection,
  McpServerConnected,
  McpToolProgress,
  McpToolTimedOut,
  Session,
  ToolInvoked,
  invokeTool,
  type McpToolValue,
  type McpTransportConfig,
} from '../../src/index.js';
import { startEverythingHttp, type EverythingHttpServer } from '../support/everything.js';
import { everythingStdio, recordEvents, toolNamed } from '../support/mcp-fixtures.js';
import { childPids, expectNoNewChildren, waitFor } from '../support/processes.js';

type Mode = 'stdio' | 'sse' | 'streamable-http';

const SHORT_TIMEOUT_MS = 500;
/** Progress restarts the timeout, up to this; far below the operation's own 30 s. */
const SHORT_TOTAL_TIMEOUT_MS = 1_500;

/** Tools server-everything registers for a client without optional capabilities. */
const ALWAYS_REGISTERED = [
  'echo',
  'get-annotated-message',
  'get-env',
  'get-resource-links',
  'get-resource-reference',
  'get-structured-content',
  'get-sum',
  'get-tiny-image',
  'gzip-file-as-resource',
  'toggle-simulated-logging',
  'toggle-subscriber-updates',
  'trigger-long-running-operation',
  'simulate-research-query',
];

function valueOf(result: { value: unknown }): McpToolValue {
  expect(result.value).not.toBeNull();
  return result.value as McpToolValue;
}

describe.each<Mode>(['stdio', 'sse', 'streamable-http'])('server-everything over %s', (mode) => {
  let before: number[];
  let server: EverythingHttpServer | undefined;
  let transport: McpTransportConfig;
  let session: Session;
  let section: McpIntegrationSection;
  /** Same server, with a short `timeoutMs`. */
  let short: McpIntegrationSection;
  let connectedEvents: McpServerConnected[];

  beforeAll(async () => {
    before = childPids();
    if (mode !== 'stdio') {
      server = await startEverythingHttp(mode === 'sse' ? 'sse' : 'streamableHttp');
    }
    transport =
      server === undefined
        ? everythingStdio()
        : mode === 'sse'
          ? { type: 'sse', url: server.url }
          : { type: 'streamable-http', url: server.url };
    session = new Session();
    const events = recordEvents(session);
    section = new McpIntegrationSection({
      servers: [{ name: 'everything', transport }],
      session,
    });
    short = new McpIntegrationSection({
      key: 'mcp.short',
      servers: [
        {
          name: 'short',
          transport,
          timeoutMs: SHORT_TIMEOUT_MS,
          maxTotalTimeoutMs: SHORT_TOTAL_TIMEOUT_MS,
        },
      ],
      session,
    });
    await Promise.all([section.connect(), short.connect()]);
    connectedEvents = events.of(McpServerConnected);
    events.stop();
  });

  afterAll(async () => {
    await Promise.all([section?.disconnect(), short?.disconnect()]);
    await server?.stop();
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  it('connects and lists every tool under its bridged name', () => {
    expect(section.connected).toBe(true);
    expect(connectedEvents.find((event) => event.serverName === 'everything')).toMatchObject({
      transport: mode,
      reconnect: false,
      toolCount: ALWAYS_REGISTERED.length,
    });
    const tools = section.tools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ALWAYS_REGISTERED.map((name) => `everything_${name}`).sort(),
    );
    for (const tool of tools) {
      expect(tool.origin).toEqual({
        kind: 'mcp',
        server: 'everything',
        originalName: tool.name.slice('everything_'.length),
      });
    }
    expect(toolNamed(section, 'everything_echo').inputSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    });
  });

  it('echo: the text comes back as message and content', async () => {
    const events = recordEvents(session);
    onTestFinished(events.stop);
    const result = await invokeTool(
      toolNamed(section, 'everything_echo'),
      { message: 'hello' },
      { session },
    );
    expect(result.success).toBe(true);
    expect(result.message).toBe('Echo: hello');
    expect(valueOf(result).content).toEqual([{ type: 'text', text: 'Echo: hello' }]);
    expect(events.of(ToolInvoked)).toEqual([
      expect.objectContaining({
        toolName: 'everything_echo',
        originalName: 'echo',
        mcpServer: 'everything',
        source: 'mcp',
        params: { message: 'hello' },
      }),
    ]);
  });

  it('get-sum: adds, and refuses a string before the call', async () => {
    const sum = toolNamed(section, 'everything_get-sum');
    const ok = await invokeTool(sum, { a: 2, b: 3.5 }, { session });
    expect(ok).toMatchObject({ success: true, message: 'The sum of 2 and 3.5 is 5.5.' });
    const refused = await invokeTool(sum, { a: 'two', b: 3 }, { session });
    expect(refused.success).toBe(false);
    expect(refused.message).toMatch(/^invalid arguments for tool "everything_get-sum": a: /);
  });

  it('get-structured-content: structuredContent is kept in value', async () => {
    const result = await invokeTool(
      toolNamed(section, 'everything_get-structured-content'),
      { location: 'Los Angeles' },
      { session },
    );
    expect(result.success).toBe(true);
    const value = valueOf(result);
    expect(value.structuredContent).toEqual({
      temperature: 73,
      conditions: 'Sunny / Clear',
      humidity: 48,
    });
    expect(value.content).toHaveLength(1);
    expect(JSON.parse(result.message)).toEqual(value.structuredContent);
  });

  it('get-tiny-image: the image block is kept in value, the message notes it', async () => {
    const result = await invokeTool(
      toolNamed(section, 'everything_get-tiny-image'),
      {},
      { session },
    );
    expect(result.success).toBe(true);
    const [before, image, after] = valueOf(result).content;
    expect(before).toEqual({ type: 'text', text: "Here's the image you requested:" });
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    const png = Buffer.from(image?.type === 'image' ? image.data : '', 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(after).toEqual({ type: 'text', text: 'The image above is the MCP logo.' });
    expect(result.message).toBe(
      `Here's the image you requested:\n[image: image/png, ${png.length} bytes]\nThe image above is the MCP logo.`,
    );
  });

  it('get-resource-links: the resource_link blocks are kept in value', async () => {
    const result = await invokeTool(
      toolNamed(section, 'everything_get-resource-links'),
      { count: 2 },
      { session },
    );
    expect(result.success).toBe(true);
    const links = valueOf(result).content.filter((block) => block.type === 'resource_link');
    expect(links).toEqual([
      expect.objectContaining({
        name: 'Blob Resource 1',
        uri: 'demo://resource/dynamic/blob/1',
        mimeType: 'text/plain',
      }),
      expect.objectContaining({
        name: 'Text Resource 2',
        uri: 'demo://resource/dynamic/text/2',
        mimeType: 'text/plain',
      }),
    ]);
    expect(result.message).toContain('[resource link: demo://resource/dynamic/text/2');
  });

  it('trigger-long-running-operation: progress arrives as McpToolProgress', async () => {
    const events = recordEvents(session);
    onTestFinished(events.stop);
    const result = await invokeTool(
      toolNamed(section, 'everything_trigger-long-running-operation'),
      { duration: 0.3, steps: 3 },
      { session },
    );
    expect(result).toMatchObject({
      success: true,
      message: 'Long running operation completed. Duration: 0.3 seconds, Steps: 3.',
    });
    const [invoked] = events.of(ToolInvoked);
    const progress = events.of(McpToolProgress);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    for (const event of progress) {
      expect(event).toMatchObject({
        serverName: 'everything',
        toolName: 'everything_trigger-long-running-operation',
        originalName: 'trigger-long-running-operation',
        callId: invoked?.callId,
        total: 3,
      });
      expect(event.progress).toBeGreaterThanOrEqual(1);
      expect(event.progress).toBeLessThanOrEqual(3);
    }
    const values = progress.map((event) => event.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
  });

  it('a call that reports progress past maxTotalTimeoutMs fails with a timeout message and McpToolTimedOut; state rolls back', async () => {
    const events = recordEvents(session);
    onTestFinished(events.stop);
    const ticks = session.slice(`ticks-${mode}`, { initial: { count: 0 } });
    onTestFinished(ticks.on(McpToolProgress, (draft) => void (draft.count += 1)));
    const seenDuringCall: number[] = [];
    onTestFinished(
      session.bus.subscribe(McpToolProgress, () => seenDuringCall.push(ticks.get().count)),
    );

    const result = await invokeTool(
      toolNamed(short, 'short_trigger-long-running-operation'),
      { duration: 30, steps: 600 },
      { session },
    );

    expect(result.success).toBe(false);
    expect(result.message).toBe(
      `tool "trigger-long-running-operation" of server "short" reported progress but did not finish within maxTotalTimeoutMs (${SHORT_TOTAL_TIMEOUT_MS} ms)`,
    );
    const [invoked] = events.of(ToolInvoked);
    expect(events.of(McpToolTimedOut)).toEqual([
      expect.objectContaining({
        serverName: 'short',
        toolName: 'short_trigger-long-running-operation',
        originalName: 'trigger-long-running-operation',
        timeoutMs: SHORT_TOTAL_TIMEOUT_MS,
        callId: invoked?.callId,
      }),
    ]);
    // Progress changed the session while the call ran; the failure put it back.
    expect(seenDuringCall.length).toBeGreaterThanOrEqual(1);
    expect(Math.max(...seenDuringCall)).toBeGreaterThanOrEqual(1);
    expect(ticks.get()).toEqual({ count: 0 });

    // The connection survives the timeout.
    const echo = await invokeTool(
      toolNamed(short, 'short_echo'),
      { message: 'after' },
      { session },
    );
    expect(echo).toMatchObject({ success: true, message: 'Echo: after' });
  });

  it('aborting a call in flight returns a cancelled error and keeps the connection usable', async () => {
    const events = recordEvents(session);
    onTestFinished(events.stop);
    const controller = new AbortController();
    // Abort once the server has shown the call is running.
    onTestFinished(session.bus.subscribe(McpToolProgress, () => controller.abort()));

    const result = await invokeTool(
      toolNamed(section, 'everything_trigger-long-running-operation'),
      { duration: 5, steps: 50 },
      { session, signal: controller.signal },
    );

    expect(controller.signal.aborted).toBe(true);
    expect(result.success).toBe(false);
    expect(result.message).toMatch(
      /^tool "trigger-long-running-operation" of server "everything" was cancelled: /,
    );
    expect(events.of(McpToolTimedOut)).toEqual([]);
    // Nothing of the cancelled call reaches the session after the abort.
    const progressAtAbort = events.of(McpToolProgress).length;
    const echo = await invokeTool(
      toolNamed(section, 'everything_echo'),
      { message: 'still here' },
      { session },
    );
    expect(echo).toMatchObject({ success: true, message: 'Echo: still here' });
    expect(events.of(McpToolProgress)).toHaveLength(progressAtAbort);
    expect(section.connected).toBe(true);
  });

  it.runIf(mode === 'sse')(
    'a streamable-http config pointed at an SSE-only endpoint falls back to SSE',
    async () => {
      const fallbackSession = new Session();
      const events = recordEvents(fallbackSession);
      await using fallback = new McpIntegrationSection({
        servers: [{ name: 'legacy', transport: { type: 'streamable-http', url: server!.url } }],
        session: fallbackSession,
      });
      await fallback.connect();
      expect(events.of(McpServerConnected)).toEqual([
        expect.objectContaining({ serverName: 'legacy', transport: 'sse', reconnect: false }),
      ]);
      const result = await invokeTool(
        toolNamed(fallback, 'legacy_echo'),
        { message: 'via sse' },
        { session: fallbackSession },
      );
      expect(result).toMatchObject({ success: true, message: 'Echo: via sse' });
    },
  );
});

describe('cancellation reaches the server', () => {
  it('the server handler sees its signal aborted, with the reason, and sends no result', async () => {
    const server = new McpServer({ name: 'slow', version: '1.0.0' });
    const started: string[] = [];
    let serverSignal: AbortSignal | undefined;
    let handlerReturned = false;
    server.registerTool(
      'wait',
      { description: 'Waits until cancelled', inputSchema: { label: z.string() } },
      async ({ label }, extra) => {
        started.push(label);
        serverSignal = extra.signal;
        const token = extra._meta?.progressToken;
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: 1, total: 2 },
          });
        }
        await new Promise<void>((resolve) => {
          if (extra.signal.aborted) resolve();
          extra.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        handlerReturned = true;
        return { content: [{ type: 'text', text: `finished ${label}` }] };
      },
    );
    server.registerTool('ping', { description: 'Answers pong', inputSchema: {} }, () => ({
      content: [{ type: 'text', text: 'pong' }],
    }));
    const session = new Session();
    const events = recordEvents(session);
    await using section = new McpIntegrationSection({
      servers: [{ name: 'slow', transport: { type: 'in-memory', server } }],
      session,
    });
    await section.connect();
    // Everything the server sends from now on.
    const sent: unknown[] = [];
    const serverTransport = server.server.transport!;
    const send = serverTransport.send.bind(serverTransport);
    serverTransport.send = (message, options) => {
      sent.push(message);
      return send(message, options);
    };
    const controller = new AbortController();
    session.bus.subscribe(McpToolProgress, () => controller.abort('the user pressed stop'));

    const result = await invokeTool(
      toolNamed(section, 'slow_wait'),
      { label: 'first' },
      { session, signal: controller.signal },
    );

    expect(result).toMatchObject({
      success: false,
      message: 'tool "wait" of server "slow" was cancelled: the user pressed stop',
    });
    expect(started).toEqual(['first']);
    // notifications/cancelled arrived: the SDK aborted the handler's signal with its reason.
    await waitFor(() => serverSignal?.aborted === true && handlerReturned, {
      timeoutMs: 2_000,
      description: 'the server to see the cancellation',
    });
    expect(String(serverSignal?.reason)).toContain('the user pressed stop');
    const invoked = events.of(ToolInvoked);
    expect(invoked.map((event) => event.result.success)).toEqual([false]);
    // The handler finished, but its result never went out; the connection still works.
    const ping = await invokeTool(toolNamed(section, 'slow_ping'), {}, { session });
    expect(ping).toMatchObject({ success: true, message: 'pong' });
    expect(JSON.stringify(sent)).not.toContain('finished first');
    expect(JSON.stringify(sent)).toContain('pong');
    expect(events.of(McpToolTimedOut)).toEqual([]);
  });
});
