/**
 * The egress proxy when the level rises while its connections are being
 * opened and used: tunnels (`CONNECT`) and absolute-form uploads are
 * opened and written to, and the policy closes (the rise to `secret`,
 * which calls `recheck()`), in generated orders and with generated real
 * gaps between the steps, so that the rise lands at every stage of the
 * proxy's own I/O (a CONNECT not yet read, read but its upstream not yet
 * connected, a tunnel carrying data, an upload's headers read but not its
 * body). A promise scheduler cannot hold that I/O; the gaps let it run or
 * not. Every chunk a client writes is tagged with whether the rise had
 * happened when it was written. Whatever the order, no chunk written after
 * the rise reaches an upstream host.
 */
import { createServer as httpServer, request as httpRequest, type ClientRequest } from 'node:http';
import { type AddressInfo, connect as netConnect, createServer as netServer } from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startEgressProxy } from '../../src/isolation/egress-proxy.js';

type Client = 0 | 1 | 2;
/**
 * How long a step waits before it runs: nothing, a microtask, a few
 * event-loop turns (the proxy reads a CONNECT in one, its upstream
 * connects a few later), or real time.
 */
type Gap = 'none' | 'microtask' | { readonly turns: number } | { readonly ms: number };
type Step = (
  | { readonly kind: 'tunnel' | 'send' | 'upload'; readonly client: Client }
  | { readonly kind: 'raise' }
) & { readonly gap: Gap };

const client = fc.constantFrom<Client>(0, 1, 2);
const gap: fc.Arbitrary<Gap> = fc.oneof(
  fc.constantFrom<Gap>('none', 'microtask'),
  { weight: 3, arbitrary: fc.record({ turns: fc.integer({ min: 1, max: 5 }) }) },
  fc.record({ ms: fc.constantFrom(1, 8) }),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tunnel' as const), client, gap }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('send' as const), client, gap }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('upload' as const), client, gap }) },
  fc.record({ kind: fc.constant('raise' as const), gap }),
);

async function wait(gap: Gap): Promise<void> {
  if (gap === 'none') return;
  if (gap === 'microtask') await Promise.resolve();
  else if ('turns' in gap) {
    for (let turn = 0; turn < gap.turns; turn += 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  } else await new Promise((resolve) => setTimeout(resolve, gap.ms));
}

/** Upstream hosts on loopback that keep every byte they receive, in arrival order. */
async function upstreams(): Promise<{
  tcpPort: number;
  httpPort: number;
  received: () => string;
  close: () => Promise<void>;
}> {
  let received = '';
  const tcp = netServer((socket) => {
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('error', () => socket.destroy());
  });
  const http = httpServer((req) => {
    req.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    req.on('error', () => undefined);
  });
  await Promise.all(
    [tcp, http].map(
      (server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve())),
    ),
  );
  return {
    tcpPort: (tcp.address() as AddressInfo).port,
    httpPort: (http.address() as AddressInfo).port,
    received: () => received,
    close: async () => {
      http.closeAllConnections();
      await Promise.all(
        [tcp, http].map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
      );
    },
  };
}

/** Lets real I/O in flight (the proxy reading, forwarding, the upstreams receiving) finish. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 60));

describe('the egress proxy when the level rises in the middle of its traffic', () => {
  it('lets nothing written after the rise reach an upstream host, in any order', async () => {
    const hosts = await upstreams();
    let arrivedBeforeRise = 0;
    let cutAtRise = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 14 }), async (steps) => {
          let open = true;
          let raised = false;
          const denied: string[] = [];
          const proxy = await startEgressProxy({
            policy: (host, port) => (open ? undefined : `closed for ${host}:${String(port)}`),
            onDenied: (host) => denied.push(host),
          });
          const socketPath = path.join(proxy.directory, proxy.socketName);
          const tunnels = new Map<Client, ReturnType<typeof netConnect>>();
          const uploads = new Map<Client, ClientRequest>();
          let written = 0;
          const tag = (who: Client): string => {
            written += 1;
            return `${raised ? 'POST' : 'PRE'}<${String(who)}:${String(written)}>`;
          };
          const before = hosts.received().length;
          const run = (s: Step): void => {
            if (s.kind === 'raise') {
              if (raised) return;
              raised = true;
              open = false;
              const deniedBefore = denied.length;
              proxy.recheck();
              // What recheck() refused at once was open: it was cut.
              if (denied.length > deniedBefore) cutAtRise += 1;
            } else if (s.kind === 'tunnel') {
              tunnels.get(s.client)?.destroy();
              const socket = netConnect(socketPath);
              socket.on('error', () => undefined);
              socket.write(
                `CONNECT 127.0.0.1:${String(hosts.tcpPort)} HTTP/1.1\r\nhost: 127.0.0.1:${String(hosts.tcpPort)}\r\n\r\n`,
              );
              tunnels.set(s.client, socket);
            } else if (s.kind === 'send') {
              const socket = tunnels.get(s.client);
              if (socket !== undefined && !socket.destroyed) socket.write(tag(s.client));
            } else {
              let upload = uploads.get(s.client);
              if (upload === undefined || upload.destroyed) {
                upload = httpRequest({
                  socketPath,
                  method: 'POST',
                  path: `http://127.0.0.1:${String(hosts.httpPort)}/upload`,
                  headers: { host: `127.0.0.1:${String(hosts.httpPort)}` },
                });
                upload.on('error', () => undefined);
                upload.on('response', (answer) => answer.resume());
                uploads.set(s.client, upload);
              }
              upload.write(tag(s.client));
            }
          };
          try {
            for (const s of steps) {
              await wait(s.gap);
              run(s);
            }
            await settle();
            const arrived = hosts.received().slice(before);
            expect(arrived).not.toContain('POST');
            if (arrived.includes('PRE')) arrivedBeforeRise += 1;
          } finally {
            for (const socket of tunnels.values()) socket.destroy();
            for (const upload of uploads.values()) upload.destroy();
            await proxy.close();
          }
        }),
        { numRuns: 150 },
      );
    } finally {
      await hosts.close();
    }
    // Not vacuous: data went through before a rise, and rises cut open connections.
    expect(arrivedBeforeRise).toBeGreaterThan(0);
    expect(cutAtRise).toBeGreaterThan(0);
  }, 120_000);
});
