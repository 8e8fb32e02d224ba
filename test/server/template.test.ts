import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerTemplateTools } from '../../examples/template/tools.js';
import {
  createMcpServer,
  PRIVATE_DATA_META_KEY,
  serveHttp,
  type HttpServerHandle,
} from '../../src/server/index.js';
import {
  call,
  connectClient,
  makeTempDirs,
  SECRET,
  textOf,
  tokenFor,
  type TempDirs,
} from './helpers.js';

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await makeTempDirs();
});
afterEach(async () => {
  await dirs.remove();
});

/**
 * One deployment of the template server, as `examples/template/server.ts`
 * builds it; its `fetch_url` may reach this machine's own test endpoints
 * unless told otherwise.
 */
function serveTemplate(instance: string, allowPrivateNetwork = true): Promise<HttpServerHandle> {
  return serveHttp(
    () => {
      const server = createMcpServer('template', {
        workspaceRoot: dirs.workspaceRoot,
        privateDataDir: dirs.privateDataDir,
        serverOptions: { capabilities: { logging: {} } },
      });
      registerTemplateTools(server, { instance, allowPrivateNetwork });
      return server;
    },
    { port: 0, auth: { secret: SECRET } },
  );
}

/** A local "external" endpoint that counts the requests reaching it. */
async function countingEndpoint(): Promise<{
  url: string;
  hits: () => number;
  close: () => Promise<void>;
}> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits++;
    // /hop/N redirects N more times before the data.
    const hops = /^\/hop\/(\d+)$/.exec(req.url ?? '');
    if (hops !== null) {
      const left = Number(hops[1]);
      res.writeHead(302, { location: left === 0 ? '/data' : `/hop/${left - 1}` });
      res.end();
      return;
    }
    res.end('external data');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/data`,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function withClient<T>(
  http: HttpServerHandle,
  user: string,
  session: string,
  fn: (c: Client) => Promise<T>,
) {
  const client = await connectClient(http.url, await tokenFor(user, session));
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

describe('template server', () => {
  it('writes and reads workspace files, and refuses paths outside', async () => {
    const http = await serveTemplate('normal');
    try {
      await withClient(http, 'alice', 's1', async (client) => {
        expect(textOf(await call(client, 'whoami'))).toBe(
          JSON.stringify({ instance: 'normal', userId: 'alice', sessionId: 's1' }),
        );
        const written = await call(client, 'write_file', {
          path: '/workspace/hello.txt',
          content: 'hello world',
        });
        expect(textOf(written)).toBe('Wrote 11 characters to /workspace/hello.txt');
        expect(textOf(await call(client, 'read_file', { path: 'hello.txt' }))).toBe('hello world');
        const onHost = await readFile(
          path.join(dirs.workspaceRoot, 'alice', 's1', 'hello.txt'),
          'utf8',
        );
        expect(onHost).toBe('hello world');

        const escape = await call(client, 'write_file', {
          path: '/workspace/../../etc/evil',
          content: 'x',
        });
        expect(escape.isError).toBe(true);
        expect(textOf(escape)).toContain('climbs out of /workspace');
        const missing = await call(client, 'read_file', { path: '/workspace/none.txt' });
        expect(missing.isError).toBe(true);
        expect(textOf(missing)).toBe(
          'no file at "/workspace/none.txt"; check the path or write the file first',
        );
      });
      // Another session of the same user sees its own workspace.
      await withClient(http, 'alice', 's2', async (client) => {
        expect((await call(client, 'read_file', { path: 'hello.txt' })).isError).toBe(true);
      });
    } finally {
      await http.close();
    }
  });

  it('saves a long file read to /workspace/results and previews it', async () => {
    const http = await serveTemplate('normal');
    try {
      await withClient(http, 'alice', 's1', async (client) => {
        const lines = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n');
        await call(client, 'write_file', { path: 'big.log', content: lines });
        const text = textOf(await call(client, 'read_file', { path: 'big.log' }));
        const match =
          /^Results saved to (\/workspace\/results\/result_[0-9a-f]{8}\.txt) \((\d+) chars\)/.exec(
            text,
          );
        expect(match?.[2]).toBe(String(lines.length));
        expect(text).toContain('... (930 lines omitted) ...');
        // The saved file is in the agent's workspace, readable with the same tools.
        const savedPath = match?.[1] ?? '';
        const host = path.join(
          dirs.workspaceRoot,
          'alice',
          's1',
          savedPath.replace('/workspace/', ''),
        );
        expect(await readFile(host, 'utf8')).toBe(lines);
      });
    } finally {
      await http.close();
    }
  });

  it('lets the model retry an empty search', async () => {
    const http = await serveTemplate('normal');
    try {
      await withClient(http, 'alice', 's1', async (client) => {
        const empty = await call(client, 'search_records', { query: '  ' });
        expect(empty.isError).toBe(true);
        expect(textOf(empty)).toBe(
          'query is empty; provide a search term such as "Oslo" or "software"',
        );
        expect(textOf(empty)).not.toMatch(/^\[FATAL\]/);
        const found = await call(client, 'search_records', { query: 'item-007' });
        expect(JSON.parse(textOf(found))).toEqual([
          { id: 7, name: 'item-007', category: 'service', city: 'Lisbon' },
        ]);
        // A broad search is long: saved and previewed.
        expect(textOf(await call(client, 'search_records', { query: 'Oslo' }))).toMatch(
          /^Results saved to/,
        );
      });
    } finally {
      await http.close();
    }
  });

  it('fetches only public hosts unless told otherwise, and checks every redirect it follows', async () => {
    const endpoint = await countingEndpoint();
    const guarded = await serveTemplate('normal', false);
    const open = await serveTemplate('normal');
    try {
      await withClient(guarded, 'alice', 's1', async (client) => {
        for (const url of [endpoint.url, 'http://[::1]:9/', 'http://169.254.169.254/latest/']) {
          const refused = await call(client, 'fetch_url', { url });
          expect(refused.isError).toBe(true);
          expect(textOf(refused)).toMatch(/is at .*, a loopback, private or reserved address/);
        }
      });
      expect(endpoint.hits()).toBe(0);
      const base = endpoint.url.replace(/\/data$/, '');
      await withClient(open, 'alice', 's1', async (client) => {
        expect(textOf(await call(client, 'fetch_url', { url: `${base}/hop/4` }))).toBe(
          'external data',
        );
        const looping = await call(client, 'fetch_url', { url: `${base}/hop/9` });
        expect(textOf(looping)).toMatch(/redirects more than 5 times$/);
      });
    } finally {
      await guarded.close();
      await open.close();
      await endpoint.close();
    }
  });

  it('answers a fetch of a host that does not answer as an error the model can act on', async () => {
    const endpoint = await countingEndpoint();
    const closedUrl = endpoint.url;
    await endpoint.close(); // nothing listens there now
    const http = await serveTemplate('normal');
    try {
      await withClient(http, 'alice', 's1', async (client) => {
        const failed = await call(client, 'fetch_url', { url: closedUrl });
        expect(failed.isError).toBe(true);
        expect(textOf(failed)).toMatch(
          /^http:\/\/127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED\)$/,
        );
      });
    } finally {
      await http.close();
    }
  });

  it('refuses a connect tool after load_sensitive_dataset in the same session; its handler never runs', async () => {
    const endpoint = await countingEndpoint();
    const http = await serveTemplate('normal');
    try {
      await withClient(http, 'alice', 's1', async (client) => {
        expect(textOf(await call(client, 'fetch_url', { url: endpoint.url }))).toBe(
          'external data',
        );
        expect(endpoint.hits()).toBe(1);

        const loaded = await call(client, 'load_sensitive_dataset', { name: 'patient_records' });
        expect(loaded.isError).toBeFalsy();
        expect(loaded._meta?.[PRIVATE_DATA_META_KEY]).toEqual({
          dataset: 'patient_records',
          sensitivity: 'confidential',
        });

        const refused = await call(client, 'fetch_url', { url: endpoint.url });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toContain(
          'this session holds private data (confidential: patient_records)',
        );
        expect(endpoint.hits()).toBe(1);
      });
      // The state lives outside the workspace, where workspace tools cannot reach it.
      const state = path.join(dirs.privateDataDir, 'alice', 's1', '.private_data');
      expect(JSON.parse(await readFile(state, 'utf8'))).toMatchObject({ has_private_data: true });
      expect(path.relative(dirs.workspaceRoot, state).startsWith('..')).toBe(true);

      // The user's other session may still connect.
      await withClient(http, 'alice', 's2', async (client) => {
        expect(textOf(await call(client, 'fetch_url', { url: endpoint.url }))).toBe(
          'external data',
        );
      });
      expect(endpoint.hits()).toBe(2);
    } finally {
      await http.close();
      await endpoint.close();
    }
  });

  it('shares workspace and private-data state between the normal and isolated deployments', async () => {
    const endpoint = await countingEndpoint();
    const normal = await serveTemplate('normal');
    const isolated = await serveTemplate('isolated');
    try {
      await withClient(normal, 'alice', 's1', async (client) => {
        await call(client, 'write_file', { path: 'notes.txt', content: 'shared' });
        await call(client, 'load_sensitive_dataset', { name: 'salary_bands' });
      });
      await withClient(isolated, 'alice', 's1', async (client) => {
        expect(JSON.parse(textOf(await call(client, 'whoami')))).toMatchObject({
          instance: 'isolated',
        });
        expect(textOf(await call(client, 'read_file', { path: 'notes.txt' }))).toBe('shared');
        const refused = await call(client, 'fetch_url', { url: endpoint.url });
        expect(textOf(refused)).toContain('(secret: salary_bands)');
      });
      expect(endpoint.hits()).toBe(0);
    } finally {
      await Promise.all([normal.close(), isolated.close()]);
      await endpoint.close();
    }
  });
});
