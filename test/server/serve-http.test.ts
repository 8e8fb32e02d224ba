import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  createMcpServer,
  defineTool,
  getSessionId,
  getUserId,
  serveHttp,
  ServerOptionsError,
  type HttpServerHandle,
  type JwtAuthOptions,
} from '../../src/server/index.js';
import {
  call,
  connectClient,
  endSession,
  makeTempDirs,
  mcpHeaders,
  rawInitialize,
  SECRET,
  textOf,
  tokenFor,
  toolCallBody,
  type TempDirs,
} from './helpers.js';

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await makeTempDirs();
});
afterEach(async () => {
  await dirs.remove();
});

/** A server whose tools report the identity they see, and count their runs. */
function identityServer(counter: { runs: number }): McpServer {
  const server = createMcpServer('identity', {
    workspaceRoot: dirs.workspaceRoot,
    privateDataDir: dirs.privateDataDir,
  });
  defineTool(server, {
    name: 'who',
    description: 'Report the caller identity after an await',
    permissions: ['read'],
    inputSchema: { delayMs: z.number().int().min(0).default(0) },
    handler: async ({ delayMs }, extra) => {
      counter.runs++;
      // The context must survive awaits inside the handler.
      await sleep(delayMs, undefined, { signal: extra.signal });
      return `${getUserId()}/${getSessionId()}`;
    },
  });
  // A plain SDK tool: identity through the async context set by serveHttp.
  server.registerTool('plain_who', { description: 'Plain SDK tool' }, () => ({
    content: [{ type: 'text', text: `${getUserId()}/${getSessionId()}` }],
  }));
  return server;
}

async function serve(
  counter: { runs: number },
  auth: JwtAuthOptions = { secret: SECRET },
): Promise<HttpServerHandle> {
  return serveHttp(() => identityServer(counter), { port: 0, auth });
}

describe('serveHttp JWT authentication', () => {
  it('accepts a valid token and the identity reaches the tool through context', async () => {
    const counter = { runs: 0 };
    const http = await serve(counter);
    try {
      expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const client = await connectClient(http.url, await tokenFor('alice', 'session-1'));
      try {
        expect(textOf(await call(client, 'who', { delayMs: 5 }))).toBe('alice/session-1');
        expect(textOf(await call(client, 'plain_who'))).toBe('alice/session-1');
        expect(counter.runs).toBe(1);
      } finally {
        await client.close();
      }
    } finally {
      await http.close();
    }
  });

  it('keeps concurrent callers apart across awaits', async () => {
    const counter = { runs: 0 };
    const http = await serve(counter);
    try {
      const alice = await connectClient(http.url, await tokenFor('alice', 'a1'));
      const bob = await connectClient(http.url, await tokenFor('bob', 'b1'));
      try {
        const results = await Promise.all([
          call(alice, 'who', { delayMs: 30 }),
          call(bob, 'who', { delayMs: 5 }),
          call(alice, 'who', { delayMs: 1 }),
          call(bob, 'who', { delayMs: 20 }),
        ]);
        expect(results.map(textOf)).toEqual(['alice/a1', 'bob/b1', 'alice/a1', 'bob/b1']);
      } finally {
        await Promise.all([alice.close(), bob.close()]);
      }
    } finally {
      await http.close();
    }
  });

  it.each([
    ['missing', undefined, 'missing bearer token'],
    ['expired', () => tokenFor('alice', 's1', { expiresInSec: -120 }), 'token expired'],
    [
      'signed with another key',
      () => tokenFor('alice', 's1', { secret: 'another-secret-0123456789-abcdefghijklmnop' }),
      'token signature does not verify',
    ],
    ['malformed', () => Promise.resolve('not.a.jwt'), 'malformed token'],
  ])('refuses a %s token with 401 before any tool runs', async (_label, makeToken, reason) => {
    const counter = { runs: 0 };
    const http = await serve(counter);
    try {
      const token = makeToken === undefined ? undefined : await makeToken();
      const headers = mcpHeaders(token === undefined ? {} : { Authorization: `Bearer ${token}` });
      const response = await fetch(http.url, {
        method: 'POST',
        headers,
        body: toolCallBody('who'),
      });
      const body = await response.text();
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="mcp"/);
      expect(body).toContain(reason);
      // Neither the secret nor the token is echoed.
      expect(body).not.toContain(SECRET);
      if (token !== undefined) expect(body).not.toContain(token);
      expect(counter.runs).toBe(0);
    } finally {
      await http.close();
    }
  });

  it('refuses a token without session_id', async () => {
    const counter = { runs: 0 };
    const http = await serve(counter);
    try {
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('alice')
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(SECRET));
      const response = await fetch(http.url, {
        method: 'POST',
        headers: mcpHeaders({ Authorization: `Bearer ${token}` }),
        body: toolCallBody('who'),
      });
      expect(response.status).toBe(401);
      const body = (await response.json()) as { error: { message: string } };
      expect(body.error.message).toBe('Unauthorized: token claim "session_id" is missing');
    } finally {
      await http.close();
    }
  });

  it('makes the SDK client fail to connect without a valid token', async () => {
    const counter = { runs: 0 };
    const http = await serve(counter);
    try {
      const expired = await tokenFor('alice', 's1', { expiresInSec: -120 });
      await expect(connectClient(http.url, expired)).rejects.toThrow(/401|Unauthorized/);
    } finally {
      await http.close();
    }
  });

  it('checks the token on every request of a session, not only at initialize', async () => {
    const counter = { runs: 0 };
    const http = await serve(counter);
    try {
      // Open a session with a valid token, then reuse its id with bad tokens.
      const init = await rawInitialize(http.url, await tokenFor('alice', 's1'));
      expect(init.status).toBe(200);
      await init.body?.cancel();
      const sessionId = init.headers.get('mcp-session-id');
      expect(sessionId).toBeTruthy();

      const expired = await fetch(http.url, {
        method: 'POST',
        headers: mcpHeaders({
          'Mcp-Session-Id': sessionId!,
          Authorization: `Bearer ${await tokenFor('alice', 's1', { expiresInSec: -120 })}`,
        }),
        body: toolCallBody('who'),
      });
      expect(expired.status).toBe(401);
      await expired.body?.cancel();

      const otherUser = await fetch(http.url, {
        method: 'POST',
        headers: mcpHeaders({
          'Mcp-Session-Id': sessionId!,
          Authorization: `Bearer ${await tokenFor('mallory', 's1')}`,
        }),
        body: toolCallBody('who'),
      });
      expect(otherUser.status).toBe(403);
      await otherUser.body?.cancel();
      expect(counter.runs).toBe(0);
    } finally {
      await http.close();
    }
  });

  it('verifies ES256 tokens against a local JWKS', async () => {
    const good = await generateKeyPair('ES256');
    const rogue = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(good.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    const counter = { runs: 0 };
    const http = await serve(counter, { jwks: { keys: [jwk] }, audience: false });
    const sign = (key: CryptoKey) =>
      new SignJWT({ session_id: 'jw1' })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setSubject('carol')
        .setExpirationTime('5m')
        .sign(key);
    try {
      const client = await connectClient(http.url, await sign(good.privateKey));
      try {
        expect(textOf(await call(client, 'who'))).toBe('carol/jw1');
      } finally {
        await client.close();
      }
      const response = await fetch(http.url, {
        method: 'POST',
        headers: mcpHeaders({ Authorization: `Bearer ${await sign(rogue.privateKey)}` }),
        body: toolCallBody('who'),
      });
      expect(response.status).toBe(401);
      expect(await response.text()).toContain('token signature does not verify');
    } finally {
      await http.close();
    }
  });

  it('refuses an HS256 token when only a JWKS is configured', async () => {
    const { publicKey } = await generateKeyPair('ES256');
    const counter = { runs: 0 };
    const http = await serve(counter, {
      jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1' }] },
      audience: false,
    });
    try {
      const response = await fetch(http.url, {
        method: 'POST',
        headers: mcpHeaders({ Authorization: `Bearer ${await tokenFor('alice', 's1')}` }),
        body: toolCallBody('who'),
      });
      expect(response.status).toBe(401);
      await response.body?.cancel();
    } finally {
      await http.close();
    }
  });
});

describe('serveHttp options and lifecycle', () => {
  it('rejects bad options with errors naming the option, never the secret', async () => {
    const factory = () => identityServer({ runs: 0 });
    await expect(serveHttp(factory, { port: 70_000, auth: { secret: SECRET } })).rejects.toThrow(
      /port must be an integer from 0 to 65535, got 70000/,
    );
    await expect(
      serveHttp(factory, { port: 0, path: 'mcp', auth: { secret: SECRET } }),
    ).rejects.toThrow(/path must start with "\/"/);
    const short = 'too-short-secret';
    const error = await serveHttp(factory, { port: 0, auth: { secret: short } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServerOptionsError);
    expect((error as Error).message).toContain('auth.secret is 16 bytes long');
    expect((error as Error).message).not.toContain(short);
  });

  it('answers 404 off the MCP path and 405 for other methods', async () => {
    const http = await serve({ runs: 0 });
    try {
      const base = http.url.replace(/\/mcp$/, '');
      const notFound = await fetch(`${base}/other`, { method: 'POST' });
      expect(notFound.status).toBe(404);
      await notFound.body?.cancel();
      const notAllowed = await fetch(http.url, { method: 'PUT' });
      expect(notAllowed.status).toBe(405);
      await notAllowed.body?.cancel();
    } finally {
      await http.close();
    }
  });

  it('answers 400 to a request target no URL parser reads, before any token, and calls no onError', async () => {
    const errors: unknown[] = [];
    const http = await serveHttp(() => identityServer({ runs: 0 }), {
      port: 0,
      auth: { secret: SECRET },
      onError: (error) => errors.push(error),
    });
    try {
      const { port } = new URL(http.url);
      const answer = await new Promise<string>((resolve, reject) => {
        let out = '';
        const socket = net.connect(Number(port), '127.0.0.1', () =>
          socket.write('GET http://[zz/mcp HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        );
        socket.on('data', (chunk: Buffer) => (out += chunk.toString('latin1')));
        socket.on('end', () => resolve(out));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(errors).toEqual([]);
    } finally {
      await http.close();
    }
  });

  it('writes the reason of a refused token as a valid quoted-string in WWW-Authenticate', async () => {
    const http = await serve({ runs: 0 });
    try {
      // A token without exp: jose's message names the claim in double quotes.
      const token = await new SignJWT({ session_id: 's1' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('alice')
        .sign(new TextEncoder().encode(SECRET));
      const answer = await fetch(http.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      await answer.body?.cancel();
      expect(answer.status).toBe(401);
      const challenge = answer.headers.get('www-authenticate') ?? '';
      const description = /error_description="((?:[^"\\]|\\.)*)"$/.exec(challenge);
      expect(description?.[1]).toMatch(/\\"exp\\"/);
    } finally {
      await http.close();
    }
  });

  it('serves one session at a time from a single instance, and one per session from a factory', async () => {
    const counter = { runs: 0 };
    const single = await serveHttp(identityServer(counter), { port: 0, auth: { secret: SECRET } });
    try {
      const first = await connectClient(single.url, await tokenFor('alice', 's1'));
      try {
        await expect(connectClient(single.url, await tokenFor('bob', 's2'))).rejects.toThrow(
          /409|one session at a time/,
        );
      } finally {
        await endSession(first);
      }
      // Once the first session ended, the instance can serve again.
      const second = await connectClient(single.url, await tokenFor('bob', 's2'));
      try {
        expect(textOf(await call(second, 'who'))).toBe('bob/s2');
      } finally {
        await second.close();
      }
    } finally {
      await single.close();
    }
  });

  it("a single instance's ended session does not close the next one when its idle time runs out", async () => {
    const counter = { runs: 0 };
    const single = await serveHttp(identityServer(counter), {
      port: 0,
      auth: { secret: SECRET },
      sessionIdleTimeoutMs: 150,
    });
    try {
      // Ended by DELETE: the response's close used to start an idle timer
      // for this session, after it had gone, on the shared server.
      await endSession(await connectClient(single.url, await tokenFor('alice', 's1')));
      const bob = await connectClient(single.url, await tokenFor('bob', 's2'));
      try {
        // Busy all along: a call every 50 ms, for three idle times.
        for (let i = 0; i < 9; i++) {
          expect(textOf(await call(bob, 'who'))).toBe('bob/s2');
          await sleep(50);
        }
        expect(single.sessionCount).toBe(1);
      } finally {
        await bob.close();
      }
    } finally {
      await single.close();
    }
  });

  it('refuses a user past maxSessionsPerUser with 429, and lets other users in', async () => {
    const http = await serveHttp(() => identityServer({ runs: 0 }), {
      port: 0,
      auth: { secret: SECRET },
      maxSessions: 10,
      maxSessionsPerUser: 2,
    });
    const clients: Awaited<ReturnType<typeof connectClient>>[] = [];
    try {
      for (const session of ['m1', 'm2']) {
        clients.push(await connectClient(http.url, await tokenFor('mallory', session)));
      }
      const refused = await rawInitialize(http.url, await tokenFor('mallory', 'm3'));
      expect(refused.status).toBe(429);
      expect(await refused.text()).toContain('Too many open sessions of this user (2)');
      const bob = await connectClient(http.url, await tokenFor('bob', 'b1'));
      clients.push(bob);
      expect(textOf(await call(bob, 'who'))).toBe('bob/b1');
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await http.close();
    }
  });

  it('answers HTTP/1.1 requests pipelined on one socket, each in turn', async () => {
    const http = await serve({ runs: 0 });
    try {
      const token = await tokenFor('alice', 'p1');
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      };
      const opened = await rawInitialize(http.url, token);
      headers['mcp-session-id'] = opened.headers.get('mcp-session-id') ?? '';
      await opened.text();
      const request = (id: number): string => {
        // The first is slow: the others' responses wait for it, with no socket of their own yet.
        const body = JSON.stringify(
          id === 1
            ? {
                jsonrpc: '2.0',
                id,
                method: 'tools/call',
                params: { name: 'who', arguments: { delayMs: 300 } },
              }
            : { jsonrpc: '2.0', id, method: 'tools/list', params: {} },
        );
        const lines = Object.entries({ ...headers, 'content-length': String(body.length) });
        return `POST /mcp HTTP/1.1\r\nHost: x\r\n${lines.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`;
      };
      const { port } = new URL(http.url);
      const answered = await new Promise<string>((resolve) => {
        let out = '';
        const socket = net.connect(Number(port), '127.0.0.1', () =>
          socket.write(request(1) + request(2) + request(3)),
        );
        socket.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (['"id":1', '"id":2', '"id":3'].every((id) => out.includes(id))) {
            socket.destroy();
            resolve(out);
          }
        });
      });
      expect(answered).toContain('"id":3');
    } finally {
      await http.close();
    }
  });

  it('a request whose client went while its token was checked still lets the session go idle', async () => {
    const http = await serveHttp(identityServer({ runs: 0 }), {
      port: 0,
      auth: { secret: SECRET },
      sessionIdleTimeoutMs: 100,
    });
    try {
      const token = await tokenFor('mallory', 'm1');
      const opened = await rawInitialize(http.url, token);
      const sessionId = opened.headers.get('mcp-session-id') ?? '';
      await opened.text();
      expect(http.sessionCount).toBe(1);
      // A call sent on a raw socket, reset at once: the response closes before it is handled.
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      const { port } = new URL(http.url);
      await new Promise<void>((resolve) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nMcp-Session-Id: ${sessionId}\r\n` +
              `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
              `Content-Length: ${body.length}\r\n\r\n${body}`,
            () =>
              setImmediate(() => {
                socket.resetAndDestroy();
                resolve();
              }),
          );
        });
      });
      await vi.waitFor(() => expect(http.sessionCount).toBe(0), { timeout: 3_000, interval: 50 });
    } finally {
      await http.close();
    }
  });

  it('close() is idempotent and ends open sessions, streams and calls in flight', async () => {
    const http = await serve({ runs: 0 });
    // The SDK client keeps a GET stream open, and the call below keeps its
    // POST stream open: a naive close() would wait for both forever.
    const client = await connectClient(http.url, await tokenFor('alice', 's1'));
    expect(http.sessionCount).toBe(1);
    const inFlight = call(client, 'who', { delayMs: 60_000 });
    inFlight.catch(() => undefined);
    await sleep(50);
    const first = http.close();
    expect(http.close()).toBe(first);
    await first;
    expect(http.sessionCount).toBe(0);
    await expect(fetch(http.url, { method: 'POST' })).rejects.toThrow();
    // The client may try to resume its cut streams; closing it ends the call.
    await client.close();
    await expect(inFlight).rejects.toThrow();
  });

  it('closes a session whose client went away without DELETE, after the idle timeout', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    try {
      const http = await serveHttp(() => identityServer({ runs: 0 }), {
        port: 0,
        auth: { secret: SECRET },
        sessionIdleTimeoutMs: 60_000,
      });
      try {
        const client = await connectClient(http.url, await tokenFor('alice', 's1'));
        await call(client, 'who');
        // A connected client holds its GET stream open: never idle.
        await vi.advanceTimersByTimeAsync(120_000);
        expect(http.sessionCount).toBe(1);
        await client.close(); // no DELETE
        await vi.waitFor(async () => {
          await vi.advanceTimersByTimeAsync(60_000);
          expect(http.sessionCount).toBe(0);
        });
      } finally {
        await http.close();
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('requires initialize first and bounds the initialize body', async () => {
    const http = await serveHttp(() => identityServer({ runs: 0 }), {
      port: 0,
      auth: { secret: SECRET },
      maxRequestBodyBytes: 1024,
    });
    try {
      const headers = mcpHeaders({ Authorization: `Bearer ${await tokenFor('alice', 's1')}` });
      const noSession = await fetch(http.url, {
        method: 'POST',
        headers,
        body: toolCallBody('who'),
      });
      expect(noSession.status).toBe(400);
      expect(await noSession.text()).toContain('the first request must be initialize');
      const big = await fetch(http.url, { method: 'POST', headers, body: 'x'.repeat(2048) });
      expect(big.status).toBe(413);
      await big.body?.cancel();
      const unknown = await fetch(http.url, {
        method: 'POST',
        headers: { ...headers, 'Mcp-Session-Id': 'no-such-session' },
        body: toolCallBody('who'),
      });
      expect(unknown.status).toBe(404);
      await unknown.body?.cancel();
      expect(http.sessionCount).toBe(0);
    } finally {
      await http.close();
    }
  });
});
