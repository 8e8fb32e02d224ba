import net from 'node:net';

/** Host every test server listens on. */
export const LOOPBACK_HOST = '127.0.0.1';

/** How long {@link canConnect} waits for a TCP handshake before giving up, in milliseconds. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 1_000;

/**
 * Asks the kernel for a TCP port that is free on 127.0.0.1: listens on port 0,
 * reads the port it was given, and closes the listener again.
 *
 * Another process may take the port before the caller binds it; callers that
 * spawn a server retry on a fresh port when it exits early (see `startEverythingHttp`).
 *
 * @throws {Error} if the listener cannot be opened or reports no TCP address.
 * @example
 * const port = await freePort();
 * spawn(process.execPath, [script], { env: { PORT: String(port) } });
 */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  await new Promise<void>((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
  });
  if (address === null || typeof address === 'string') {
    throw new Error(
      `listener on ${LOOPBACK_HOST}:0 reported address ${String(address)}, not a TCP port`,
    );
  }
  return address.port;
}

/** Options for {@link canConnect}. */
export interface CanConnectOptions {
  /**
   * Give up and report `false` when no handshake completes in this time.
   * @default DEFAULT_CONNECT_TIMEOUT_MS
   */
  readonly timeoutMs?: number;
}

/**
 * Whether a TCP connection to `host:port` succeeds. Refused, unreachable and
 * timed-out connections all report `false`; the socket is always destroyed.
 *
 * @example
 * expect(await canConnect('127.0.0.1', server.port)).toBe(true);
 */
export function canConnect(
  host: string,
  port: number,
  options: CanConnectOptions = {},
): Promise<boolean> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  return new Promise<boolean>((resolve) => {
    const socket = net.connect({ host, port });
    const finish = (connected: boolean): void => {
      socket.destroy();
      resolve(connected);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}
