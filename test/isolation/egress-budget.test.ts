/**
 * The egress proxy runs in the client's process, and a sandboxed server
 * drives it: it may open 100 connections a second (after 200 at once) and
 * move 8 MB a second through it (after 64 MB). A server repeating refused
 * connections cost the client 84% of a core, and a tunnel moved 1.2 GB a
 * second through it; past the budget the server is held back, not refused.
 */
import { type AddressInfo, connect as netConnect, createServer as netServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  EGRESS_LIMITS,
  MAX_EGRESS_CONNECTIONS,
  startEgressProxy,
} from '../../src/isolation/egress-proxy.js';

/** Sends one CONNECT over the proxy's socket; resolves with the socket once the answer's status line came. */
function connectThrough(
  socketPath: string,
  target: string,
): Promise<{ status: string; socket: ReturnType<typeof netConnect> }> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(socketPath, () => {
      socket.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n\r\n`);
    });
    let head = '';
    const onData = (chunk: Buffer): void => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      resolve({ status: head.slice(0, end), socket });
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

describe('the egress proxy budget', () => {
  it('takes refused connections at its rate', async () => {
    let denied = 0;
    const proxy = await startEgressProxy({
      policy: () => 'nothing is allowed',
      onDenied: () => (denied += 1),
    });
    const socketPath = path.join(proxy.directory, proxy.socketName);
    try {
      const started = performance.now();
      const end = started + 1_500;
      while (performance.now() < end) {
        // A few at a time, as a sandboxed server that retries at once.
        const answers = await Promise.all(
          Array.from({ length: 10 }, () => connectThrough(socketPath, 'blocked.test:443')),
        );
        for (const { status, socket } of answers) {
          expect(status).toBe('HTTP/1.1 403 Forbidden');
          socket.destroy();
        }
      }
      const elapsed = (performance.now() - started) / 1_000;
      expect(denied).toBeLessThanOrEqual(
        EGRESS_LIMITS.tokenBurst + EGRESS_LIMITS.tokensPerSecond * elapsed + 10,
      );
      expect(denied).toBeGreaterThan(EGRESS_LIMITS.tokenBurst); // held back, not refused
    } finally {
      await proxy.close();
    }
  }, 30_000);

  it('passes a tunnel at its byte rate', async () => {
    const zeros = Buffer.alloc(1 << 20);
    const upstream = netServer((socket) => {
      const more = (): void => {
        while (!socket.destroyed && socket.write(zeros));
      };
      socket.on('drain', more);
      socket.on('error', () => socket.destroy());
      more();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const { port } = upstream.address() as AddressInfo;
    const proxy = await startEgressProxy({ policy: () => undefined });
    const socketPath = path.join(proxy.directory, proxy.socketName);
    try {
      const { status, socket } = await connectThrough(socketPath, `127.0.0.1:${String(port)}`);
      expect(status).toBe('HTTP/1.1 200 Connection Established');
      const started = performance.now();
      let bytes = 0;
      socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const elapsed = (performance.now() - started) / 1_000;
      socket.destroy();
      // A chunk passes past the budget (up to 1 MB here), and the status line's read.
      expect(bytes).toBeLessThanOrEqual(
        EGRESS_LIMITS.byteBurst + EGRESS_LIMITS.bytesPerSecond * elapsed + 2 * zeros.length,
      );
      expect(bytes).toBeGreaterThan(EGRESS_LIMITS.byteBurst / 2); // it did pass
    } finally {
      await proxy.close();
      await new Promise((resolve) => upstream.close(resolve));
    }
  }, 30_000);
  it('closes a connection past the most it holds open at once', async () => {
    const proxy = await startEgressProxy({ policy: () => undefined });
    const socketPath = path.join(proxy.directory, proxy.socketName);
    const sockets: ReturnType<typeof netConnect>[] = [];
    let closedByProxy = 0;
    try {
      for (let i = 0; i < MAX_EGRESS_CONNECTIONS + 10; i++) {
        const socket = netConnect(socketPath);
        socket.on('error', () => undefined);
        socket.once('close', () => (closedByProxy += 1));
        sockets.push(socket);
        await new Promise((resolve) => socket.once('connect', resolve));
      }
      // Idle connections the proxy holds; the ten past the bound are closed at once.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(closedByProxy).toBe(10);
    } finally {
      for (const socket of sockets) socket.destroy();
      await proxy.close();
    }
  });
});
