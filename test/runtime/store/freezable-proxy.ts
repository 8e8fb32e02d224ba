/**
 * A TCP proxy in front of a test redis-server on 127.0.0.1 that can make
 * its pub/sub connections go silent without closing them: the connection
 * stays open, but nothing Redis sends on it (messages, PONGs) is delivered.
 */
import net from 'node:net';
import { LOOPBACK_HOST } from '../../support/ports.js';

/** A running proxy. */
export interface FreezableProxy {
  /** `redis://127.0.0.1:<port>` of the proxy. */
  readonly url: string;
  /** From now on, connections that sent SUBSCRIBE receive nothing more. */
  freezeSubscribers(): void;
  /** Closes every connection and the listener. */
  close(): Promise<void>;
}

/** Starts a proxy to the Redis on `port`. */
export async function startFreezableProxy(port: number): Promise<FreezableProxy> {
  let frozen = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, LOOPBACK_HOST);
    let subscriber = false;
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      if (/subscribe/i.test(chunk.toString('latin1'))) subscriber = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!(subscriber && frozen)) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK_HOST, resolve));
  const { port: own } = server.address() as net.AddressInfo;
  return {
    url: `redis://${LOOPBACK_HOST}:${own}`,
    freezeSubscribers() {
      frozen = true;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
