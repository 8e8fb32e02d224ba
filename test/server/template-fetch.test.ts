/**
 * The template's `fetchText` checks the addresses it connects to, in the
 * connection's own lookup: a name that resolves to a public address when
 * checked and to a private one when connected to (DNS rebinding) cannot
 * reach a private service. DNS is played by the `resolve` option.
 */
import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fetchText } from '../../examples/template/connector.js';
import { isNonPublicAddress, type ResolveAll } from '../../examples/template/public-address.js';
import { ToolRetryError } from '../../src/server/errors.js';

const PUBLIC = '93.184.216.34';

describe('the template fetch on a name whose addresses change', () => {
  let server: Server;
  let port = 0;
  let hits = 0;

  beforeEach(async () => {
    hits = 0;
    server = createServer((_request, response) => {
      hits += 1;
      response.end('internal data');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** A resolver answering `answers[n]` to its n-th question (the last one after that). */
  function dns(...answers: (readonly string[])[]): ResolveAll & { readonly asked: string[] } {
    const asked: string[] = [];
    const resolve = (
      hostname: string,
      _options: unknown,
      callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
    ): void => {
      const answer = answers[Math.min(asked.length, answers.length - 1)] ?? [];
      asked.push(hostname);
      const addresses = answer.map((address) => ({
        address,
        family: address.includes(':') ? 6 : 4,
      }));
      setImmediate(() => callback(null, addresses));
    };
    return Object.assign(resolve, { asked });
  }

  it('connects only to the answer it checked, when the name turns private afterwards', async () => {
    const resolve = dns([PUBLIC], ['127.0.0.1']);
    // The public address is not reachable from here: the attempt is cut short either way.
    const attempt = fetchText(`http://rebind.example:${port}/`, {
      resolve,
      signal: AbortSignal.timeout(300),
    });
    // The public answer passed the check and was connected to (or tried).
    const error = await attempt.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(String(error)).not.toMatch(/private or reserved/);
    expect(resolve.asked).toEqual(['rebind.example']);
    expect(hits).toBe(0);
  });

  it('refuses a name with any private answer, naming it, and sends nothing', async () => {
    for (const answer of [['127.0.0.1'], [PUBLIC, '127.0.0.1'], ['::1'], ['169.254.169.254']]) {
      const resolve = dns(answer);
      const attempt = fetchText(`http://intranet.example:${port}/data`, { resolve });
      await expect(attempt).rejects.toThrow(ToolRetryError);
      const private_ = answer.find((address) => isNonPublicAddress(address));
      await expect(attempt).rejects.toThrow(
        `http://intranet.example:${port} is at ${private_}, a loopback, private or reserved address; only public hosts can be fetched`,
      );
    }
    expect(hits).toBe(0);
  });

  it('refuses an address written in the URL, which no lookup sees, before connecting', async () => {
    const resolve = dns([PUBLIC]);
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]']) {
      await expect(fetchText(`http://${host}:${port}/`, { resolve })).rejects.toThrow(
        /is at .*, a loopback, private or reserved address/,
      );
    }
    expect(resolve.asked).toEqual([]);
    expect(hits).toBe(0);
  });

  it('names a name with no address as unreachable', async () => {
    await expect(
      fetchText(`http://nothing.example:${port}/`, { resolve: dns([]) }),
    ).rejects.toThrow(`http://nothing.example:${port} could not be reached (ENOTFOUND)`);
  });

  it('answers a host that switches protocols, or closes without an answer, with an error, not a wait', async () => {
    server.removeAllListeners('request');
    server.on('request', (request, response) => {
      hits += 1;
      if (request.url === '/close') request.socket.destroy();
      else response.end('unused');
    });
    server.on('upgrade', (_request, socket) => {
      hits += 1;
      socket.end(
        'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n',
      );
    });
    const local = { allowPrivateNetwork: true } as const;
    await expect(fetchText(`http://127.0.0.1:${port}/close`, local)).rejects.toThrow(
      `http://127.0.0.1:${port} could not be reached (ECONNRESET)`,
    );
    // A host that answers a plain GET with `101 Switching Protocols` (any public host can).
    const switching = createNetServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () =>
        socket.write(
          'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n',
        ),
      );
    });
    await new Promise<void>((resolve) => switching.listen(0, '127.0.0.1', resolve));
    try {
      const switched = (switching.address() as AddressInfo).port;
      await expect(fetchText(`http://127.0.0.1:${switched}/`, local)).rejects.toThrow(
        new RegExp(
          `^http://127\\.0\\.0\\.1:${switched} could not be reached \\((EPROTO|ECONNRESET)\\)$`,
        ),
      );
    } finally {
      await new Promise((resolve) => switching.close(resolve));
    }
  });

  it('says what it is and asks for the body as it is', async () => {
    let headers: Record<string, string | string[] | undefined> = {};
    server.removeAllListeners('request');
    server.on('request', (request, response) => {
      headers = request.headers;
      response.end('plain');
    });
    expect(await fetchText(`http://127.0.0.1:${port}/`, { allowPrivateNetwork: true })).toBe(
      'plain',
    );
    expect(headers).toMatchObject({
      'user-agent': 'mcp-sections-template/1.0',
      'accept-encoding': 'identity',
    });
  });

  it('tells public from private addresses, IPv4 written as IPv6 and documentation ranges included', () => {
    for (const address of ['8.8.8.8', PUBLIC, '2606:4700::1111']) {
      expect(isNonPublicAddress(address), address).toBe(false);
    }
    for (const address of [
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '100.64.0.1',
      '0.0.0.0',
      '192.0.2.10',
      '198.51.100.7',
      '203.0.113.9',
      '::ffff:127.0.0.1',
      '::ffff:8.8.8.8',
      'fd00::1',
      'fe80::1',
      '2001:db8::1',
      'ff02::1',
      '::7f00:1',
      '::ffff:0:7f00:1',
      '64:ff9b:1::a9fe:a9fe',
      '2002:7f00:1::1',
      'fec0::1',
      '192.88.99.1',
    ]) {
      expect(isNonPublicAddress(address), address).toBe(true);
    }
    expect(() => isNonPublicAddress('localhost')).toThrow(/not an IP address: "localhost"/);
  });
});
