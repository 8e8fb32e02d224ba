/**
 * Over streamable HTTP a server answers a call on the event stream of the
 * call's POST. A stream that ends or breaks before the answer (a crashed
 * server, a stream cut at a bound) fails the call at once with the reason;
 * before, the SDK only reported it through `onerror` and the call waited
 * its whole timeout, which then blamed the timeout. A stream the SDK can
 * resume (it carried an event id) is left to the resumption.
 *
 * The calls here have a 30-second timeout: a result that says why the
 * answer was lost, and not that the call timed out, shows it came at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type http from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  invokeTool,
  McpConnectionPool,
  McpIntegrationSection,
  McpServerLog,
  Session,
} from '../../src/index.js';
import { MIN_STREAM_REOPEN_MS } from '../../src/mcp/bounded-fetch.js';
import { RESUME_ATTEMPTS } from '../../src/mcp/lost-answers.js';
import { MAX_MESSAGE_CONTAINERS } from '../../src/mcp/message-containers.js';
import { type HttpHost, startHttpHost, toolNamed } from '../support/mcp-fixtures.js';

const TIMEOUT_MS = 30_000;

const hosts: HttpHost[] = [];
const sections: McpIntegrationSection[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  await Promise.all(children.splice(0).map(stopChild));
});

interface Rpc {
  readonly id?: number;
  readonly method: string;
  readonly params?: { readonly protocolVersion?: string; readonly name?: string };
}

async function messageOf(req: http.IncomingMessage): Promise<Rpc> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return JSON.parse(text) as Rpc;
}

/** How a hand-written server's `tools/call` answer stream goes. */
type CallAnswer = (
  message: Rpc,
  res: http.ServerResponse,
  req: http.IncomingMessage,
) => void | Promise<void>;

const TOOLS = ['work', 'lookup'].map((name) => ({
  name,
  inputSchema: { type: 'object' },
  annotations: name === 'lookup' ? { readOnlyHint: true, openWorldHint: false } : {},
}));

/**
 * A streamable-HTTP server that answers the handshake and `tools/list` as
 * JSON, a `GET` with `onGet`, and every `tools/call` with `onCall`.
 */
async function handWrittenHost(
  onCall: CallAnswer,
  onGet?: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  onList?: CallAnswer,
): Promise<{ host: HttpHost; calls: () => number }> {
  let calls = 0;
  const host = await startHttpHost(async (req, res) => {
    if (req.method === 'GET' && onGet !== undefined) {
      onGet(req, res);
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
      return;
    }
    const message = await messageOf(req);
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (message.method === 'tools/call') {
      calls += 1;
      await onCall(message, res, req);
      return;
    }
    if (message.method === 'tools/list' && onList !== undefined) {
      await onList(message, res, req);
      return;
    }
    const result =
      message.method === 'initialize'
        ? {
            protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
            capabilities: { tools: {} },
            serverInfo: { name: 'hand-written', version: '1' },
          }
        : message.method === 'tools/list'
          ? { tools: TOOLS }
          : {};
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'one' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
  });
  hosts.push(host);
  return { host, calls: () => calls };
}

function eventStream(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'one' });
  res.flushHeaders();
}

function event(data: object, id?: string): string {
  return `${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
}

async function connectedTo(
  url: string,
): Promise<{ section: McpIntegrationSection; session: Session }> {
  const session = new Session();
  const section = new McpIntegrationSection({
    session,
    servers: [{ name: 'web', timeoutMs: TIMEOUT_MS, transport: { type: 'streamable-http', url } }],
  });
  sections.push(section);
  await section.connect();
  return { section, session };
}

async function call(url: string, tool = 'work'): Promise<{ success: boolean; message: string }> {
  const { section, session } = await connectedTo(url);
  return invokeTool(toolNamed(section, `web_${tool}`), {}, { session });
}

describe('an answer stream that ends without the answer', () => {
  it('a stream broken mid-call fails the call at once, naming why, and is not re-sent', async () => {
    const { host, calls } = await handWrittenHost((_message, res, req) => {
      eventStream(res);
      // A progress note, then the connection drops, as when the process dies.
      res.write(
        event({
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { level: 'info', data: 'working' },
        }),
      );
      setTimeout(() => req.socket.destroy(), 20);
    });
    const result = await call(host.url('/mcp'));
    expect(result.success).toBe(false);
    expect(result.message).toContain('lost its connection');
    expect(result.message).toContain('its answer never came: its event stream broke');
    expect(result.message).not.toContain('timed out');
    expect(result.message).toContain('not re-sent');
    expect(calls()).toBe(1);
  });

  it('a call through section.execute or the session pool fails at once too', async () => {
    const { host } = await handWrittenHost((_message, res, req) => {
      eventStream(res);
      setTimeout(() => req.socket.destroy(), 20);
    });
    const pool = new McpConnectionPool();
    const session = new Session();
    const section = new McpIntegrationSection({
      session,
      pool,
      servers: [
        {
          name: 'web',
          timeoutMs: TIMEOUT_MS,
          transport: { type: 'streamable-http', url: host.url('/mcp') },
        },
      ],
    });
    sections.push(section);
    await section.connect();
    const executed = await section.execute({ name: 'web.work', arguments: {} });
    expect(executed.message).toContain('its answer never came: its event stream broke');
    const pooled = await pool.callTool('web', 'work', {});
    expect(pooled.isError).toBe(true);
    expect(JSON.stringify(pooled.content)).toContain(
      'its answer never came: its event stream broke',
    );
  });

  it('a stream the server ends without answering fails the call at once', async () => {
    const { host } = await handWrittenHost((_message, res) => {
      eventStream(res);
      setTimeout(() => res.end(), 20);
    });
    const result = await call(host.url('/mcp'));
    expect(result.success).toBe(false);
    expect(result.message).toContain(
      'its answer never came: the server ended its event stream without it',
    );
    expect(result.message).not.toContain('timed out');
  });

  it('a stream cut at the bound on one message fails the call at once with that bound', async () => {
    const { host } = await handWrittenHost((message, res) => {
      eventStream(res);
      // One event holding more arrays than any message may: refused as it streams.
      const nested = '[]'.repeat(MAX_MESSAGE_CONTAINERS + 10).replaceAll('][', '],[');
      res.end(
        `data: {"jsonrpc":"2.0","id":${String(message.id)},"result":{"content":[],"x":[${nested}]}}\n\n`,
      );
    });
    const result = await call(host.url('/mcp'));
    expect(result.success).toBe(false);
    expect(result.message).toContain('its answer never came: its event stream broke');
    expect(result.message).toMatch(/objects and arrays/);
    expect(result.message).not.toContain('timed out');
  });

  it('a read-only tool whose answer was lost is sent once more, as after any lost connection', async () => {
    let first = true;
    const { host, calls } = await handWrittenHost((message, res, req) => {
      eventStream(res);
      if (first) {
        first = false;
        setTimeout(() => req.socket.destroy(), 20);
        return;
      }
      res.end(
        event({
          jsonrpc: '2.0',
          id: message.id,
          result: { content: [{ type: 'text', text: 'found' }] },
        }),
      );
    });
    const result = await call(host.url('/mcp'), 'lookup');
    expect(result).toMatchObject({ success: true, message: 'found' });
    expect(calls()).toBe(2);
  });

  it('answers that end their stream at once, large or small, many at a time, are never taken for lost', async () => {
    const { host } = await handWrittenHost((message, res) => {
      eventStream(res);
      const size = message.id! % 3 === 0 ? 1_000_000 : 10;
      const text = `answer ${String(message.id)} ${'x'.repeat(size)}`;
      // Answer and end in one write, the tightest case for the stream's end.
      res.end(
        event({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }] } }),
      );
    });
    const { section, session } = await connectedTo(host.url('/mcp'));
    const work = toolNamed(section, 'web_work');
    const results = await Promise.all(
      Array.from({ length: 60 }, () => invokeTool(work, {}, { session })),
    );
    for (const result of results) {
      expect(result.success, result.message.slice(0, 200)).toBe(true);
      expect(result.message.slice(0, 20)).toMatch(/^answer \d+ x/);
    }
  });

  it('a stream that carried an event id is resumed, and its answer still comes', async () => {
    let answered: Rpc | undefined;
    const { host } = await handWrittenHost(
      (message, res) => {
        answered = message;
        eventStream(res);
        // The priming event of a resumable stream, then the server closes it to be polled.
        res.end('id: primed-1\nretry: 10\ndata: \n\n');
      },
      (req, res) => {
        if (req.headers['last-event-id'] !== 'primed-1' || answered === undefined) {
          res.writeHead(405).end();
          return;
        }
        eventStream(res);
        const result = { content: [{ type: 'text', text: 'resumed answer' }] };
        res.end(event({ jsonrpc: '2.0', id: answered.id, result }, 'primed-2'));
      },
    );
    const result = await call(host.url('/mcp'));
    expect(result).toMatchObject({ success: true, message: 'resumed answer' });
  });

  it.each([
    // The SDK tries again after a failed resumption, as often as it is told to.
    [500, RESUME_ATTEMPTS],
    // A 405 says there is no stream to resume: the SDK does not try again.
    [405, 1],
  ])(
    'a stream whose resumption the server answers %i fails the call once the SDK gives up',
    async (status, attempts) => {
      let resumptions = 0;
      const { host } = await handWrittenHost(
        (_message, res) => {
          eventStream(res);
          res.end('id: primed-1\nretry: 10\ndata: \n\n');
        },
        (req, res) => {
          if (req.headers['last-event-id'] === 'primed-1') resumptions += 1;
          res.writeHead(status).end();
        },
      );
      const result = await call(host.url('/mcp'));
      expect(result.success).toBe(false);
      expect(result.message).toContain(
        `its answer never came: its event stream could not be resumed (the server answered ${String(status)})`,
      );
      expect(result.message).not.toContain('timed out');
      expect(resumptions).toBe(attempts);
    },
  );

  it('a stream whose answer was an error is not resumed: nothing stays open per failed call', async () => {
    // The SDK resumes a stream that carried an id unless a *result* answered it.
    let resumptions = 0;
    const { host } = await handWrittenHost(
      (message, res) => {
        eventStream(res);
        const error = { code: -32602, message: 'bad arguments' };
        const answer = JSON.stringify({ jsonrpc: '2.0', id: message.id, error });
        // `retry: 10` has the SDK resume at once.
        res.end(`retry: 10\nid: answer-${String(message.id)}\ndata: ${answer}\n\n`);
      },
      (req, res) => {
        if (req.headers['last-event-id'] !== undefined) resumptions += 1;
        res.writeHead(405).end();
      },
    );
    const { section, session } = await connectedTo(host.url('/mcp'));
    const work = toolNamed(section, 'web_work');
    for (let i = 0; i < 5; i += 1) {
      const result = await invokeTool(work, {}, { session });
      expect(result.message).toContain('bad arguments');
    }
    // The SDK's resumptions are answered here, without a request to the server (they
    // would have reached it by now: event streams open MIN_STREAM_REOPEN_MS apart).
    await new Promise((resolve) => setTimeout(resolve, 6 * MIN_STREAM_REOPEN_MS));
    expect(resumptions).toBe(0);
  });

  it.each([
    ['an id on an event the stream broke inside', 'id: e9\ndata: {"jsonrpc":"2.0","id":'],
    ['an empty id', 'id:\ndata: \n\n'],
    ['an id on an event with no data line', 'id: e3\n\n'],
  ])('a stream that carried %s cannot be resumed: it fails at once', async (_case, sent) => {
    const { host } = await handWrittenHost((_message, res, req) => {
      eventStream(res);
      res.write(sent);
      setTimeout(() => req.socket.destroy(), 20);
    });
    const result = await call(host.url('/mcp'));
    expect(result.message).toContain('its answer never came: its event stream broke');
  });

  it('a stream whose id is longer than any resumed from is not resumed: it fails at once', async () => {
    // Read cut, such an id was once told from the one the SDK sends back: the
    // resumption was then neither refused nor watched, and stayed open.
    let resumptions = 0;
    const { host } = await handWrittenHost(
      (_message, res, req) => {
        eventStream(res);
        res.write(`id: ${'x'.repeat(200_000)}\nretry: 10\ndata: \n\n`);
        setTimeout(() => req.socket.destroy(), 20);
      },
      (req, res) => {
        if (req.headers['last-event-id'] !== undefined) resumptions += 1;
        eventStream(res); // held open, as a hostile server would
      },
    );
    const result = await call(host.url('/mcp'));
    expect(result.message).toContain('its answer never came: its event stream broke');
    await new Promise((resolve) => setTimeout(resolve, 6 * MIN_STREAM_REOPEN_MS));
    expect(resumptions).toBe(0);
  });

  it("keeps one of the server's own event streams open, however many resumptions end empty", async () => {
    // A resumption that ends without an id has the SDK open a plain GET, the
    // server's own stream, again: each stayed open, one more per call.
    const held: http.ServerResponse[] = [];
    const { host } = await handWrittenHost(
      (_message, res, req) => {
        eventStream(res);
        res.write('id: primed\nretry: 10\ndata: \n\n');
        setTimeout(() => req.socket.destroy(), 20);
      },
      (req, res) => {
        eventStream(res);
        if (req.headers['last-event-id'] !== undefined)
          res.end(); // resumed, empty
        else held.push(res); // the server's own stream, held open
      },
    );
    const { section, session } = await connectedTo(host.url('/mcp'));
    for (let i = 0; i < 5; i += 1) {
      const result = await invokeTool(toolNamed(section, 'web_work'), {}, { session });
      expect(result.success).toBe(false);
    }
    await new Promise((resolve) => setTimeout(resolve, 6 * MIN_STREAM_REOPEN_MS));
    expect(held.filter((res) => !res.destroyed && !res.writableEnded).length).toBeLessThanOrEqual(
      1,
    );
    expect(held.length).toBeGreaterThan(0); // the stream was opened
  });

  it('an event past the bound is not resumed, even with an id: the same event would come again', async () => {
    let resumptions = 0;
    const { host } = await handWrittenHost(
      (message, res) => {
        eventStream(res);
        const nested = '[]'.repeat(MAX_MESSAGE_CONTAINERS + 10).replaceAll('][', '],[');
        res.write('id: primed\ndata: \n\n');
        res.end(
          `id: big\ndata: {"jsonrpc":"2.0","id":${String(message.id)},"result":{"content":[],"x":[${nested}]}}\n\n`,
        );
      },
      (req, res) => {
        if (req.headers['last-event-id'] !== undefined) resumptions += 1;
        res.writeHead(405).end();
      },
    );
    const result = await call(host.url('/mcp'));
    expect(result.message).toMatch(
      /its answer never came: its event stream broke \(.*objects and arrays/,
    );
    expect(resumptions).toBe(0);
  });

  it('an event stream named in another case (Text/Event-Stream) is watched as the SDK reads it', async () => {
    const { host } = await handWrittenHost((_message, res) => {
      res.writeHead(200, {
        'content-type': 'Text/Event-Stream; charset=utf-8',
        'mcp-session-id': 'one',
      });
      res.flushHeaders();
      setTimeout(() => res.end(), 20);
    });
    const result = await call(host.url('/mcp'));
    expect(result.message).toContain('the server ended its event stream without it');
  });

  it('a JSON reply that does not hold the answer fails the call at once', async () => {
    const { host } = await handWrittenHost((_message, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'one' });
      const note = {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: 'x' },
      };
      res.end(JSON.stringify(note));
    });
    const result = await call(host.url('/mcp'));
    expect(result.message).toContain(
      'its answer never came: the server ended its JSON reply without it',
    );
  });

  it('a listing whose answer stream breaks fails the connect at once, naming why', async () => {
    const { host } = await handWrittenHost(
      () => undefined,
      undefined,
      (_message, res, req) => {
        eventStream(res);
        setTimeout(() => req.socket.destroy(), 20);
      },
    );
    const section = new McpIntegrationSection({
      session: new Session(),
      servers: [
        {
          name: 'web',
          timeoutMs: TIMEOUT_MS,
          transport: { type: 'streamable-http', url: host.url('/mcp') },
        },
      ],
    });
    sections.push(section);
    await expect(section.connect()).rejects.toThrow(
      /Connection closed \(its answer never came: its event stream broke/,
    );
  });
});

const DYING_SERVER = fileURLToPath(
  new URL('../fixtures/hostile/dying-http-server.mjs', import.meta.url),
);

/** Starts the fixture server, a process of its own, and reads its URL. */
async function startDyingServer(
  ...args: readonly string[]
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [DYING_SERVER, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.once('data', (line: string) => resolve(line.trim()));
    child.once('exit', (code) => reject(new Error(`the server exited (${String(code)})`)));
  });
  return { url, child };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('a streamable-HTTP server process killed mid-call', () => {
  it.each([
    ['', 'its answer never came: its event stream broke'],
    // Its stream carried event ids: the SDK tries to resume it, and cannot reach the process.
    ['resumable', 'its answer never came: its event stream could not be resumed (fetch failed)'],
  ])(
    'fails the call (%s) as soon as the answer is lost, naming why, not the timeout',
    async (kind, reason) => {
      const { url, child } = await startDyingServer(kind);
      const { section, session } = await connectedTo(url);
      // Killed once its answer stream is open: the client has read the log the call wrote there.
      const working = new Promise<void>((resolve) =>
        session.bus.subscribe(McpServerLog, (event) => {
          if (event.message === 'working') resolve();
        }),
      );
      const pending = invokeTool(toolNamed(section, 'web_hang'), {}, { session });
      await working;
      await stopChild(child);
      const result = await pending;
      expect(result.success).toBe(false);
      expect(result.message).toContain(reason);
      expect(result.message).not.toContain('timed out');
    },
  );
});
