/**
 * Pins the client side of server-to-client requests: the capabilities
 * advertised for each set of handlers, and, against a real in-process
 * `McpServer`, that elicitation, sampling and roots requests reach the
 * handlers with the server's name and a signal the server's cancellation
 * aborts, that unconfigured features are refused, and that tool-list and
 * log notifications are passed on.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  capabilitiesFor,
  installClientHandlers,
  MAX_RUNNING_HANDLERS,
  type RunningHandlers,
  type ClientHandlers,
  type ServerRequestContext,
  type ServerRequestRefusal,
} from '../../src/mcp/client-handlers.js';

describe('capabilitiesFor', () => {
  it('advertises exactly the features given', () => {
    const noop = () => {
      throw new Error('not called');
    };
    expect(capabilitiesFor({})).toEqual({});
    expect(capabilitiesFor({ elicitation: noop })).toEqual({
      elicitation: { form: { applyDefaults: true } },
    });
    expect(capabilitiesFor({ sampling: noop })).toEqual({ sampling: {} });
    expect(capabilitiesFor({ roots: noop })).toEqual({ roots: { listChanged: false } });
    expect(capabilitiesFor({ elicitation: noop, sampling: noop, roots: noop })).toEqual({
      elicitation: { form: { applyDefaults: true } },
      sampling: {},
      roots: { listChanged: false },
    });
  });
});

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function pair(
  handlers: ClientHandlers,
  running: RunningHandlers = { count: 0 },
  refusal?: ServerRequestRefusal,
) {
  const heard = { toolListChanged: 0, logs: [] as LoggingMessageNotification['params'][] };
  const server = new McpServer(
    { name: 'peer', version: '1.0.0' },
    { capabilities: { logging: {}, tools: { listChanged: true } } },
  );
  const client = new Client(
    { name: 'test', version: '0' },
    { capabilities: capabilitiesFor(handlers) },
  );
  installClientHandlers(client, {
    serverName: 'github',
    endpoint: 'normal',
    handlers,
    notifications: {
      toolListChanged: () => (heard.toolListChanged += 1),
      log: (message) => heard.logs.push(message),
    },
    running,
    ...(refusal === undefined ? {} : { refusal }),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  open.push(server, client);
  return { server: server.server, client, heard };
}

describe('installClientHandlers', () => {
  it('answers elicitation with the handler, given the params and the server name', async () => {
    const seen: [unknown, string][] = [];
    const { server } = await pair({
      elicitation: (params, context) => {
        seen.push([params.message, context.serverName]);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    const result = await server.elicitInput({
      message: 'Who are you?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    expect(result).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(seen).toEqual([['Who are you?', 'github']]);
  });

  it('answers sampling with the handler', async () => {
    const { server } = await pair({
      sampling: (params, context) => ({
        role: 'assistant',
        model: `m-${context.serverName}`,
        content: { type: 'text', text: `max ${params.maxTokens}` },
      }),
    });
    const result = await server.createMessage({
      messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
      maxTokens: 42,
    });
    expect(result).toEqual({
      role: 'assistant',
      model: 'm-github',
      content: { type: 'text', text: 'max 42' },
    });
  });

  it('answers roots/list with a copy of the handler’s roots', async () => {
    const roots = Object.freeze([{ uri: 'file:///srv/repo', name: 'repo' }]);
    const { server } = await pair({ roots: () => roots });
    expect(await server.listRoots()).toEqual({
      roots: [{ uri: 'file:///srv/repo', name: 'repo' }],
    });
  });

  it('refuses requests for features without a handler', async () => {
    const { server } = await pair({});
    await expect(server.listRoots()).rejects.toThrow('MCP error -32601: Method not found');
    await expect(
      server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
        maxTokens: 1,
      }),
    ).rejects.toThrow('MCP error -32601: Method not found');
    await expect(
      server.elicitInput({ message: 'q', requestedSchema: { type: 'object', properties: {} } }),
    ).rejects.toThrow('Client does not support form elicitation');
  });

  it('counts a refusal that waits among the running handlers, and gives it the request’s signal', async () => {
    const running: RunningHandlers = { count: 0 };
    let sampled = 0;
    // A refusal that waits (a store that does not answer) until the server cancels.
    const refusal: ServerRequestRefusal = (signal) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => resolve('cancelled'), { once: true });
      });
    const { server } = await pair(
      {
        sampling: () => {
          sampled += 1;
          return { role: 'assistant', model: 'm', content: { type: 'text', text: 'x' } };
        },
      },
      running,
      refusal,
    );
    await server.ping(); // the SDK ignores a cancellation of request id 0
    const ask = {
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'hi' } }],
      maxTokens: 1,
    };
    const controllers = Array.from({ length: MAX_RUNNING_HANDLERS }, () => new AbortController());
    const waiting = controllers.map((controller) =>
      server.createMessage(ask, { signal: controller.signal }).catch(() => 'cancelled'),
    );
    await expect.poll(() => running.count).toBe(MAX_RUNNING_HANDLERS);
    await expect(server.createMessage(ask)).rejects.toThrow(
      `already answering ${MAX_RUNNING_HANDLERS} requests`,
    );
    for (const controller of controllers) controller.abort('enough');
    await Promise.all(waiting);
    await expect.poll(() => running.count).toBe(0);
    expect(sampled).toBe(0);
  });

  it('aborts the handler’s signal when the server cancels the request', async () => {
    let context: ServerRequestContext | undefined;
    let entered!: () => void;
    const started = new Promise<void>((resolve) => (entered = resolve));
    const { server } = await pair({
      roots: (ctx) => {
        context = ctx;
        entered();
        return new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => reject(new Error('cancelled')));
        });
      },
    });
    // The SDK ignores a cancellation of request id 0 (a falsy-id check), so
    // spend id 0 on a ping first.
    await server.ping();
    const controller = new AbortController();
    const request = server.listRoots(undefined, { signal: controller.signal });
    await started;
    expect(context?.signal.aborted).toBe(false);
    controller.abort('stop');
    await expect(request).rejects.toThrow();
    await expect.poll(() => context?.signal.aborted).toBe(true);
  });

  it('passes tool-list changes and log messages on', async () => {
    const { server, heard } = await pair({});
    await server.sendToolListChanged();
    await server.sendLoggingMessage({ level: 'warning', logger: 'db', data: { n: 1 } });
    await expect.poll(() => heard.logs.length).toBe(1);
    expect(heard.toolListChanged).toBe(1);
    expect(heard.logs).toEqual([{ level: 'warning', logger: 'db', data: { n: 1 } }]);
  });

  it(`runs at most ${MAX_RUNNING_HANDLERS} handlers at once, refusing more, even when they ignore cancellation`, async () => {
    let started = 0;
    const { server } = await pair({
      elicitation: () => {
        started += 1;
        return new Promise<never>(() => undefined); // never answers, ignores its signal
      },
    });
    const asks = Array.from({ length: MAX_RUNNING_HANDLERS + 4 }, () => {
      const controller = new AbortController();
      const asked = server
        .elicitInput(
          { message: 'q', requestedSchema: { type: 'object', properties: {} } },
          { signal: controller.signal, timeout: 60_000 },
        )
        .then(
          () => 'answered',
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        );
      return { controller, asked };
    });
    await expect.poll(() => started).toBe(MAX_RUNNING_HANDLERS);
    // The four past the bound were refused with the reason.
    const refused = await Promise.all(asks.slice(MAX_RUNNING_HANDLERS).map((ask) => ask.asked));
    for (const message of refused)
      expect(message).toContain('the client is already answering 16 requests');
    // Cancelled by the server, the handlers still run: the bound stays.
    for (const ask of asks.slice(0, MAX_RUNNING_HANDLERS)) ask.controller.abort();
    await Promise.all(asks.slice(0, MAX_RUNNING_HANDLERS).map((ask) => ask.asked));
    const again = await server
      .elicitInput({ message: 'q', requestedSchema: { type: 'object', properties: {} } })
      .then(
        () => 'answered',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
    expect(again).toContain('the client is already answering 16 requests');
    expect(started).toBe(MAX_RUNNING_HANDLERS);
  });

  it('keeps the count across the clients of one connection: a reconnect starts no fresh bound', async () => {
    let started = 0;
    const running: RunningHandlers = { count: 0 };
    const ignoring: ClientHandlers = {
      elicitation: () => {
        started += 1;
        return new Promise<never>(() => undefined); // never answers, ignores its signal
      },
    };
    const ask = (server: Awaited<ReturnType<typeof pair>>['server']) =>
      server
        .elicitInput(
          { message: 'q', requestedSchema: { type: 'object', properties: {} } },
          { timeout: 60_000 },
        )
        .then(
          () => 'answered',
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        );
    const first = await pair(ignoring, running);
    for (let i = 0; i < MAX_RUNNING_HANDLERS; i += 1) void ask(first.server);
    await expect.poll(() => started).toBe(MAX_RUNNING_HANDLERS);
    await first.client.close(); // the connection was lost; its handlers run on
    const second = await pair(ignoring, running);
    expect(await ask(second.server)).toContain('the client is already answering 16 requests');
    expect(started).toBe(MAX_RUNNING_HANDLERS);
  });
});
