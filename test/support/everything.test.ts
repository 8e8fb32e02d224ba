import { execFile } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  everythingServerPath,
  filesystemServerPath,
  loopbackPreloadPath,
  memoryServerPath,
  startEverythingHttp,
  type EverythingHttpMode,
  type EverythingHttpServer,
} from './everything.js';
import { canConnect, LOOPBACK_HOST } from './ports.js';
import { childPids, expectNoNewChildren, isAlive, listeningSockets } from './processes.js';

const run = promisify(execFile);

/** An address of this machine other than loopback, or undefined when it has none. */
function nonLoopbackAddress(): string | undefined {
  const addresses = Object.values(os.networkInterfaces()).flatMap((infos) => infos ?? []);
  const external = addresses.filter((info) => !info.internal);
  // Link-local IPv6 needs a scope id to connect to; prefer IPv4, then global IPv6.
  return (
    external.find((info) => info.family === 'IPv4')?.address ??
    external.find((info) => info.family === 'IPv6' && !info.address.startsWith('fe80'))?.address
  );
}

const externalAddress = nonLoopbackAddress();

function newClient(): Client {
  return new Client({ name: 'support-smoke', version: '0.0.0' });
}

/** What every transport must show a user: the tool list and a working echo. */
async function expectEchoWorks(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(
    expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']),
  );
  const result = await client.callTool({ name: 'echo', arguments: { message: 'hello' } });
  expect(result.isError).toBeFalsy();
  expect(result.content).toEqual([{ type: 'text', text: 'Echo: hello' }]);
}

describe('support paths', () => {
  it('point at the bin scripts of the installed reference servers', () => {
    expect(everythingServerPath).toMatch(/server-everything[/\\]dist[/\\]index\.js$/);
    expect(filesystemServerPath).toMatch(/server-filesystem[/\\]dist[/\\]index\.js$/);
    expect(memoryServerPath).toMatch(/server-memory[/\\]dist[/\\]index\.js$/);
  });
});

describe('loopback preload', () => {
  // Each listen form a server might use without naming a host; prints the bound addresses.
  const script = `
    import net from 'node:net';
    const forms = [
      (s) => s.listen(0),
      (s) => s.listen('0', () => {}),
      (s) => s.listen({ port: 0 }),
      (s) => s.listen(),
      (s) => s.listen(0, 511, () => {}),
    ];
    const bound = [];
    for (const listen of forms) {
      const server = net.createServer();
      await new Promise((resolve) => { server.once('listening', resolve); listen(server); });
      bound.push(server.address().address);
      await new Promise((resolve) => server.close(resolve));
    }
    console.log(JSON.stringify(bound));
  `;
  const addresses = async (preload: string[]): Promise<unknown> => {
    const { stdout } = await run(
      process.execPath,
      [...preload, '--input-type=module', '--eval', script],
      { timeout: 10_000 },
    );
    return JSON.parse(stdout);
  };

  it('binds every host-less listen to 127.0.0.1', async () => {
    const preload = ['--import', pathToFileURL(loopbackPreloadPath).href];
    expect(await addresses(preload)).toEqual(Array<string>(5).fill(LOOPBACK_HOST));
  });

  it('is what makes the difference: without it the same listens take every interface', async () => {
    expect(await addresses([])).toEqual(
      Array<unknown>(5).fill(expect.stringMatching(/^(::|0\.0\.0\.0)$/)),
    );
  });
});

describe('server-everything over stdio', () => {
  it('lists tools, calls echo and leaves no process behind', async () => {
    const before = childPids();
    const client = newClient();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [everythingServerPath, 'stdio'],
      stderr: 'ignore',
    });
    let pid: number | null = null;
    try {
      await client.connect(transport);
      pid = transport.pid;
      expect(pid).not.toBeNull();
      expect(childPids()).toContain(pid);
      await expectEchoWorks(client);
    } finally {
      await client.close();
    }
    expect(await expectNoNewChildren(before)).toEqual([]);
    expect(isAlive(pid!)).toBe(false);
  });
});

const connectors: Record<
  EverythingHttpMode,
  (url: URL) => SSEClientTransport | StreamableHTTPClientTransport
> = {
  sse: (url) => new SSEClientTransport(url),
  streamableHttp: (url) => new StreamableHTTPClientTransport(url),
};

describe.each(['sse', 'streamableHttp'] as const)('server-everything over %s', (mode) => {
  let before: number[] = [];
  let server: EverythingHttpServer | undefined;

  beforeAll(async () => {
    before = childPids();
    server = await startEverythingHttp(mode);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('serves its MCP endpoint on 127.0.0.1', async () => {
    const { url, port, pid } = server!;
    expect(url).toBe(`http://127.0.0.1:${port}${mode === 'sse' ? '/sse' : '/mcp'}`);
    expect(childPids()).toContain(pid);
    expect(listeningSockets(pid)).toEqual([{ address: LOOPBACK_HOST, port }]);
    const client = newClient();
    try {
      await client.connect(connectors[mode](new URL(url)));
      await expectEchoWorks(client);
    } finally {
      await client.close();
    }
  });

  it.skipIf(externalAddress === undefined)(
    'is not reachable on a non-loopback address of this machine',
    async () => {
      const address = externalAddress!;
      expect(await canConnect(LOOPBACK_HOST, server!.port)).toBe(true);
      expect(await canConnect(address, server!.port)).toBe(false);

      // Control: a server on every interface is reachable there and is reported
      // as such, so the checks above can fail.
      const exposed = net.createServer();
      await new Promise<void>((resolve) => exposed.listen(0, resolve));
      try {
        const { port } = exposed.address() as net.AddressInfo;
        expect(await canConnect(address, port)).toBe(true);
        const mine = listeningSockets(process.pid).filter((socket) => socket.port === port);
        expect(mine.map((socket) => socket.address)).toEqual([
          expect.stringMatching(/^(::|0\.0\.0\.0)$/),
        ]);
      } finally {
        await new Promise((resolve) => exposed.close(resolve));
      }
    },
  );

  it('stop() ends the server, is idempotent and leaves no child process', async () => {
    const { pid } = server!;
    await server!.stop();
    await server!.stop();
    expect(isAlive(pid)).toBe(false);
    expect(await canConnect(LOOPBACK_HOST, server!.port)).toBe(false);
    expect(await expectNoNewChildren(before)).toEqual([]);
  });
});
