/**
 * The requests a connection sends: `tools/list` follows `nextCursor` and
 * stops a server that repeats one; `tools/call` keeps the caller's signal
 * free of leftover listeners and says which limit stopped it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpTimeoutError } from '../../src/core/errors.js';
import {
  LISTING_TIMEOUT_FACTOR,
  listAllTools,
  MAX_LIST_PAGES,
  MAX_LISTED_TOOLS,
  MAX_LISTING_SIZE,
  sendToolCall,
} from '../../src/mcp/requests.js';
import { CONTAINER_SIZE } from '../../src/mcp/listing-size.js';
import { rawToolServer } from '../support/mcp-fixtures.js';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function clientOf(server: Server): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'unit', version: '1.0.0' });
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

const broken = (problem: string): Error => new Error(`broken: ${problem}`);

describe('listAllTools', () => {
  it('follows nextCursor across pages, in order', async () => {
    const tools = Array.from({ length: 7 }, (_, i) => ({
      name: `t${i}`,
      inputSchema: { type: 'object' },
    }));
    const raw = rawToolServer(tools, { pageSize: 3 });
    const listed = await listAllTools(await clientOf(raw.server), {
      timeoutMs: 5_000,
      signal: undefined,
      broken,
    });
    expect(listed.tools.map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name));
    expect(raw.listCursors).toEqual([undefined, 'page-3', 'page-6']);
  });

  it('stops a server that sends the same cursor twice', async () => {
    const server = new Server({ name: 'loop', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'again', inputSchema: { type: 'object' as const } }],
      nextCursor: 'same',
    }));
    await expect(
      listAllTools(await clientOf(server), { timeoutMs: 5_000, signal: undefined, broken }),
    ).rejects.toThrow('broken: tools/list repeated the cursor "same"');
  });
});

describe('listAllTools refuses a listing past its bounds, never cutting it short', () => {
  /** A server whose every page names a fresh cursor, after `delayMs`, with `perPage` tools. */
  function endless(perPage: number, delayMs = 0): Server {
    const server = new Server(
      { name: 'endless', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    let page = 0;
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      page += 1;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return {
        tools: Array.from({ length: perPage }, (_, i) => ({
          name: `p${String(page)}_${String(i)}`,
          inputSchema: { type: 'object' as const },
        })),
        nextCursor: `page-${String(page)}`,
      };
    });
    return server;
  }

  it(`at ${MAX_LIST_PAGES} pages`, async () => {
    await expect(
      listAllTools(await clientOf(endless(1)), { timeoutMs: 5_000, signal: undefined, broken }),
    ).rejects.toThrow(
      `broken: tools/list did not end within ${MAX_LIST_PAGES} pages (${MAX_LIST_PAGES} tools in ${MAX_LIST_PAGES} pages so far)`,
    );
  });

  it(`past ${MAX_LISTED_TOOLS} tools`, async () => {
    await expect(
      listAllTools(await clientOf(endless(20_000)), {
        timeoutMs: 5_000,
        signal: undefined,
        broken,
      }),
    ).rejects.toThrow(
      `broken: tools/list offered more than ${MAX_LISTED_TOOLS} tools (220000 in 11 pages)`,
    );
  });

  /** A server whose every page names a fresh cursor and holds one tool that `tool` makes. */
  function heavy(tool: (page: number) => Record<string, unknown>): Server {
    const server = new Server({ name: 'heavy', version: '1.0.0' }, { capabilities: { tools: {} } });
    let page = 0;
    server.setRequestHandler(ListToolsRequestSchema, () => {
      page += 1;
      return {
        tools: [{ name: `t${String(page)}`, inputSchema: { type: 'object' }, ...tool(page) }],
        nextCursor: `page-${String(page)}`,
      };
    });
    return server;
  }

  /** About 9 MB of JSON text, new for every page (a real transport hands over new objects). */
  const nineMegabytes = (page: number): string => `${String(page)}`.padEnd(9 * 1024 * 1024, 'x');

  /** The pages a listing was refused after, from the message; any other failure throws. */
  async function refusedAfter(server: Server): Promise<number> {
    const failure = await listAllTools(await clientOf(server), {
      timeoutMs: 5_000,
      signal: undefined,
      broken,
    }).then(
      () => new Error('the listing was accepted'),
      (error: unknown) => error,
    );
    const message = failure instanceof Error ? failure.message : String(failure);
    const found = new RegExp(
      `^broken: tools/list was larger than ${MAX_LISTING_SIZE} \\(characters of JSON, each object and array counted as ${CONTAINER_SIZE} more; (\\d+) tools in (\\d+) pages\\)$`,
    ).exec(message);
    if (found === null) throw new Error(`not refused for its size: ${message}`);
    return Number(found[2]);
  }

  /** A long array of one 9 MB string and zeros: its commas alone pass a schema's own bound. */
  const longArray = (page: number): unknown[] => {
    const items: unknown[] = new Array<unknown>(300_000).fill(0);
    items[0] = nineMegabytes(page);
    return items;
  };

  const members: [string, (page: number) => Record<string, unknown>][] = [
    ['descriptions', (page) => ({ description: nineMegabytes(page) })],
    [
      'input schemas (each refused alone at connect, but held until then)',
      // Many properties: a walk that stops at one schema's own bound would count a fraction.
      (page) => ({
        inputSchema: {
          type: 'object',
          properties: Object.fromEntries(
            Array.from({ length: 8 * 1024 }, (_, i) => [
              `p${String(i)}`,
              { type: 'string', description: `${String(page)}`.padEnd(1024, 'x') },
            ]),
          ),
        },
      }),
    ],
    [
      'output schemas',
      (page) => ({ outputSchema: { type: 'object', $comment: nineMegabytes(page) } }),
    ],
    ['_meta', (page) => ({ _meta: { 'example.com/blob': [{ data: nineMegabytes(page) }] } })],
    ['icons', (page) => ({ icons: [{ src: `data:image/png;base64,${nineMegabytes(page)}` }] })],
    ['long arrays in _meta', (page) => ({ _meta: { a: longArray(page) } })],
    [
      'long arrays in an input schema',
      (page) => ({ inputSchema: { type: 'object', enum: longArray(page) } }),
    ],
    [
      '_meta that JSON cannot carry beside what it can',
      (page) => ({ _meta: { hook: 10n, blob: nineMegabytes(page) } }),
    ],
    [
      'input schemas that cannot be surveyed beside what can',
      (page) => ({
        inputSchema: { type: 'object', default: 10n, description: nineMegabytes(page) },
      }),
    ],
    [
      // 300,000 objects are 0.9 MB of text but tens of MB of heap: each counts as more.
      'many small objects',
      () => ({ _meta: { many: Array.from({ length: 300_000 }, () => ({})) } }),
    ],
  ];

  it.each(members)(`past a size of ${MAX_LISTING_SIZE} in %s`, async (_, tool) => {
    // About 9 to 11 million a page: refused at the tenth to twelfth.
    const pages = await refusedAfter(heavy(tool));
    expect(pages).toBeGreaterThanOrEqual(10);
    expect(pages).toBeLessThanOrEqual(12);
  });

  it('counts what JSON cannot carry (an in-process server can send it) without failing', async () => {
    const server = new Server({ name: 'odd', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        {
          name: 'odd',
          inputSchema: { type: 'object' as const, default: 10n },
          _meta: { hook: () => 'never called' },
        },
      ],
    }));
    const listed = await listAllTools(await clientOf(server), {
      timeoutMs: 5_000,
      signal: undefined,
      broken,
    });
    expect(listed.tools.map((tool) => tool.name)).toEqual(['odd']);
  });

  it(`after ${LISTING_TIMEOUT_FACTOR} times the timeout in all`, async () => {
    const started = Date.now();
    await expect(
      listAllTools(await clientOf(endless(1, 60)), { timeoutMs: 100, signal: undefined, broken }),
    ).rejects.toThrow(
      /broken: tools\/list did not end within 1000 ms \(\d+ tools in \d+ pages so far\)/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('sendToolCall', () => {
  it('cancels a call in flight when the caller aborts: the call rejects with the reason and the server sees it', async () => {
    let serverSignal: AbortSignal | undefined;
    let markStarted = (): void => undefined;
    const started = new Promise<void>((resolve) => {
      markStarted = resolve;
    });
    const client = await clientOf(
      rawToolServer([
        {
          name: 'wait',
          inputSchema: { type: 'object' },
          handler: (_args, extra) => {
            serverSignal = extra.signal;
            markStarted();
            return new Promise(() => undefined);
          },
        },
      ]).server,
    );
    const caller = new AbortController();
    const call = sendToolCall(
      client,
      { serverName: 's', name: 'wait', args: {} },
      { signal: caller.signal },
      5_000,
    );
    await started;
    caller.abort(new Error('the user left'));
    await expect(call).rejects.toThrow('the user left');
    await vi.waitFor(() => expect(serverSignal?.aborted).toBe(true));
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('leaves no listener on a long-lived caller signal after many calls', async () => {
    const client = await clientOf(
      rawToolServer([{ name: 'echo', inputSchema: { type: 'object' } }]).server,
    );
    const caller = new AbortController();
    for (let i = 0; i < 20; i += 1) {
      await sendToolCall(
        client,
        { serverName: 's', name: 'echo', args: {} },
        { signal: caller.signal },
        5_000,
      );
    }
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('names timeoutMs when the call is silent, and maxTotalTimeoutMs when progress kept it going', async () => {
    const raw = rawToolServer([
      {
        name: 'silent',
        inputSchema: { type: 'object' },
        handler: () => new Promise(() => undefined),
      },
      {
        name: 'chatty',
        inputSchema: { type: 'object' },
        handler: async (_args, extra) => {
          const token = extra._meta?.progressToken;
          for (let i = 0; ; i += 1) {
            if (token !== undefined) {
              await extra.sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress: i },
              });
            }
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        },
      },
    ]);
    const client = await clientOf(raw.server);
    const silent = await sendToolCall(
      client,
      { serverName: 's', name: 'silent', args: {} },
      {},
      100,
    ).catch((error: unknown) => error);
    expect(silent).toBeInstanceOf(McpTimeoutError);
    // No progress was asked for, so the message says how progress could extend the timeout.
    expect((silent as Error).message).toMatch(
      /^tool "silent" of server "s" timed out after 100 ms \(.*set maxTotalTimeoutMs/,
    );
    const chatty = await sendToolCall(
      client,
      { serverName: 's', name: 'chatty', args: {} },
      { maxTotalTimeoutMs: 300, onProgress: () => undefined },
      100,
    ).catch((error: unknown) => error);
    expect(chatty).toBeInstanceOf(McpTimeoutError);
    expect((chatty as Error).message).toContain('within maxTotalTimeoutMs (300 ms)');
  });
});

describe('sendToolCall, with handlers', () => {
  /** A client of a bare responder that answers every tools/call with `result`, unchecked. */
  async function clientAnswering(result: unknown): Promise<Client> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    serverSide.onmessage = (message) => {
      if (!('method' in message) || !('id' in message)) return;
      const reply =
        message.method === 'initialize'
          ? {
              protocolVersion: LATEST_PROTOCOL_VERSION,
              capabilities: { tools: {} },
              serverInfo: { name: 'bare', version: '1.0.0' },
            }
          : result;
      void serverSide.send({ jsonrpc: '2.0', id: message.id, result: reply as never });
    };
    await serverSide.start();
    const client = new Client({ name: 'unit', version: '1.0.0' });
    await client.connect(clientSide);
    clients.push(client);
    return client;
  }

  it('hands the answer, a broken result and a timeout each to the one handler that takes it', async () => {
    const served = await clientOf(
      rawToolServer([
        { name: 'echo', inputSchema: { type: 'object' } },
        { name: 'silent', inputSchema: { type: 'object' }, handler: () => new Promise(() => {}) },
      ]).server,
    );
    const broken = await clientAnswering({ content: [{ type: 'text', text: 42 }] });
    const seen: string[] = [];
    const handlers = {
      answered: (result: { content: unknown[] }) => {
        seen.push(`answered ${JSON.stringify(result.content)}`);
        return 'answered';
      },
      failed: (error: unknown) => {
        seen.push(`failed ${error instanceof McpTimeoutError ? 'timeout' : String(error)}`);
        return 'failed';
      },
    };
    const send = (client: Client, name: string, timeoutMs = 5_000): Promise<string> =>
      sendToolCall(client, { serverName: 's', name, args: {} }, {}, timeoutMs, handlers);
    expect(await send(served, 'echo')).toBe('answered');
    expect(await send(broken, 'any')).toBe('failed');
    expect(await send(served, 'silent', 50)).toBe('failed');
    expect(seen).toEqual([
      'answered [{"type":"text","text":"called echo"}]',
      expect.stringMatching(/^failed .*its result breaks the MCP schema: content\.0\.text/),
      'failed timeout',
    ]);
  });
});

describe('sendToolCall, after the answer', () => {
  it('keeps nothing of the call in a progress handler the SDK holds on to', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const kept: ((progress: { progress: number }) => void)[] = [];
    // Stands for the SDK keeping a task's progress handler past the answer.
    const client = {
      request: (_request: unknown, _schema: unknown, options: { onprogress: never }) => {
        kept.push(options.onprogress);
        return Promise.resolve({ content: [] });
      },
    } as unknown as Client;
    let published = 0;
    const context = await (async () => {
      const callContext = { payload: new Array(1_000).fill(1) };
      const onProgress = () => {
        published += callContext.payload.length;
      };
      await sendToolCall(client, { serverName: 's', name: 't', args: {} }, { onProgress }, 1_000);
      return new WeakRef(callContext);
    })();
    kept[0]?.({ progress: 1 });
    expect(published).toBe(0);
    for (let i = 0; i < 10 && context.deref() !== undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      gc();
    }
    expect(context.deref()).toBeUndefined();
    expect(kept).toHaveLength(1); // still held, and holding nothing
  });
});
