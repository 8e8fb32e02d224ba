import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { freePort, LOOPBACK_HOST } from './ports.js';
import { listeningSockets, waitFor } from './processes.js';

const require = createRequire(import.meta.url);

/**
 * Absolute path of the JS file a package names in its `bin` field, found
 * through node_modules the way `import` would find the package.
 */
function binPath(packageName: string): string {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin?: unknown };
  const { bin } = manifest;
  const relative =
    typeof bin === 'string'
      ? bin
      : bin !== null && typeof bin === 'object'
        ? Object.values(bin).find((value): value is string => typeof value === 'string')
        : undefined;
  if (relative === undefined) {
    throw new Error(`${manifestPath} has no "bin" entry; expected the server's start script`);
  }
  return path.resolve(path.dirname(manifestPath), relative);
}

/**
 * Entry script of `@modelcontextprotocol/server-everything`. Run as
 * `node <path> stdio|sse|streamableHttp`.
 */
export const everythingServerPath: string = binPath('@modelcontextprotocol/server-everything');

/**
 * Entry script of `@modelcontextprotocol/server-filesystem` (stdio only). Run as
 * `node <path> <allowed-dir>...`.
 */
export const filesystemServerPath: string = binPath('@modelcontextprotocol/server-filesystem');

/**
 * Entry script of `@modelcontextprotocol/server-memory` (stdio only). Always set
 * `MEMORY_FILE_PATH` to an absolute temp file, or it writes into node_modules.
 */
export const memoryServerPath: string = binPath('@modelcontextprotocol/server-memory');

/** Absolute path of the `--import` preload that binds unqualified listens to 127.0.0.1. */
export const loopbackPreloadPath: string = fileURLToPath(
  new URL('./loopback-preload.mjs', import.meta.url),
);

/** HTTP transports of server-everything. */
export type EverythingHttpMode = 'sse' | 'streamableHttp';

/** MCP endpoint path per mode, as routed in server-everything's dist/transports/*.js. */
const ENDPOINT_PATHS: Readonly<Record<EverythingHttpMode, string>> = {
  sse: '/sse',
  streamableHttp: '/mcp',
};

/** Default bound on waiting for the server to listen on its port, in milliseconds. */
export const DEFAULT_START_TIMEOUT_MS = 15_000;

/** Default grace between SIGTERM and SIGKILL in `stop()`, in milliseconds. */
export const DEFAULT_KILL_TIMEOUT_MS = 3_000;

/** How many ports a start tries when the process exits before listening (lost port race). */
const PORT_ATTEMPTS = 3;

/** Bytes of the child's stdout and stderr kept for error messages. */
const OUTPUT_TAIL_BYTES = 8_192;

/** Options for {@link startEverythingHttp}. */
export interface StartEverythingHttpOptions {
  /**
   * Extra environment for the server, on top of the SDK's safe default
   * environment (HOME, PATH, ...) and `PORT`. The test runner's own environment
   * is not inherited.
   * @default {}
   */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Bound on waiting for the server to listen on its port.
   * @default DEFAULT_START_TIMEOUT_MS
   */
  readonly startTimeoutMs?: number;
  /**
   * Grace between SIGTERM and SIGKILL when stopping.
   * @default DEFAULT_KILL_TIMEOUT_MS
   */
  readonly killTimeoutMs?: number;
}

/** A running server-everything HTTP process, listening on 127.0.0.1 only. */
export interface EverythingHttpServer {
  /** Transport the server speaks. */
  readonly mode: EverythingHttpMode;
  /** MCP endpoint: `http://127.0.0.1:<port>/sse` or `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** TCP port on 127.0.0.1. */
  readonly port: number;
  /** Process id of the server (a direct child of the test process). */
  readonly pid: number;
  /**
   * Ends the process: SIGTERM, then SIGKILL after `killTimeoutMs`, and resolves
   * once it has exited. Idempotent; later calls return the same promise.
   */
  stop(): Promise<void>;
  /** Same as {@link EverythingHttpServer.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Children not stopped yet; killed when the worker exits so that none outlives it. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Keeps the last bytes a stream wrote, and keeps reading so the child never blocks on a full pipe. */
function tail(stream: NodeJS.ReadableStream | null): () => string {
  let text = '';
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk: string) => {
    text = (text + chunk).slice(-OUTPUT_TAIL_BYTES);
  });
  return () => text;
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves when `child` has exited, or with `false` after `timeoutMs`. */
function exited(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (hasExited(child)) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, timeoutMs);
    child.once('exit', onExit);
  });
}

async function terminate(child: ChildProcess, killTimeoutMs: number): Promise<void> {
  // No pid: spawning failed and there is no process to end.
  if (child.pid === undefined || hasExited(child)) return;
  child.kill('SIGTERM');
  if (await exited(child, killTimeoutMs)) return;
  child.kill('SIGKILL');
  if (!(await exited(child, killTimeoutMs))) {
    throw new Error(`server pid ${child.pid} did not exit ${killTimeoutMs} ms after SIGKILL`);
  }
}

/** Outcome of one attempt to start the server on a given port. */
type Attempt =
  | { readonly ok: true; readonly server: EverythingHttpServer }
  | { readonly ok: false; readonly retry: boolean; readonly error: Error };

async function attemptStart(
  mode: EverythingHttpMode,
  port: number,
  options: StartEverythingHttpOptions,
): Promise<Attempt> {
  const killTimeoutMs = options.killTimeoutMs ?? DEFAULT_KILL_TIMEOUT_MS;
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const child = spawn(
    process.execPath,
    ['--import', pathToFileURL(loopbackPreloadPath).href, everythingServerPath, mode],
    {
      env: { ...getDefaultEnvironment(), ...options.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  running.add(child);
  child.once('exit', () => running.delete(child));
  const stdout = tail(child.stdout);
  const stderr = tail(child.stderr);
  const output = (): string => `--- stdout ---\n${stdout()}\n--- stderr ---\n${stderr()}`;

  // Stop polling the port as soon as the process dies or cannot be spawned.
  const died = new AbortController();
  const onDied = (reason: string): void =>
    died.abort(new Error(`server-everything ${mode} ${reason} before listening\n${output()}`));
  child.once('exit', (code, signal) => onDied(`exited (code ${code}, signal ${signal})`));
  child.once('error', (error) => onDied(`failed to spawn: ${error.message}`));

  // Readiness is "this child holds a listening socket on the port", not "the port
  // accepts connections": the latter also holds when another process won the port.
  const listening = (): boolean =>
    child.pid !== undefined && listeningSockets(child.pid).some((socket) => socket.port === port);
  try {
    await waitFor(listening, {
      timeoutMs: startTimeoutMs,
      intervalMs: 50,
      description: `server-everything ${mode} (pid ${child.pid}) to listen on port ${port}`,
      signal: died.signal,
    });
  } catch (error) {
    const exitedEarly = died.signal.aborted && child.exitCode !== null;
    await terminate(child, killTimeoutMs);
    const cause = error instanceof Error ? error : new Error(String(error));
    // An early death already carries the output; a timeout does not yet.
    const message = died.signal.aborted ? cause.message : `${cause.message}\n${output()}`;
    // A process that exited before listening most likely lost the port race:
    // streamableHttp exits 1 on EADDRINUSE, while sse (express 5 hands the error to
    // a callback that ignores it) exits 0. Either way another port is worth a try.
    return { ok: false, retry: exitedEarly, error: new Error(message, { cause }) };
  }

  const pid = child.pid;
  if (pid === undefined) {
    await terminate(child, killTimeoutMs);
    return { ok: false, retry: false, error: new Error('spawned server has no pid') };
  }
  // The rule is loopback only; a server the preload did not catch is stopped, not used.
  const exposed = listeningSockets(pid).filter((socket) => socket.address !== LOOPBACK_HOST);
  if (exposed.length > 0) {
    await terminate(child, killTimeoutMs);
    const where = exposed.map((socket) => `${socket.address}:${socket.port}`).join(', ');
    return {
      ok: false,
      retry: false,
      error: new Error(
        `server-everything ${mode} listened on ${where}; expected ${LOOPBACK_HOST} only`,
      ),
    };
  }
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= terminate(child, killTimeoutMs));
  const server: EverythingHttpServer = Object.freeze({
    mode,
    url: `http://${LOOPBACK_HOST}:${port}${ENDPOINT_PATHS[mode]}`,
    port,
    pid,
    stop,
    [Symbol.asyncDispose]: stop,
  });
  return { ok: true, server };
}

/**
 * Spawns server-everything in SSE or streamable-HTTP mode on a free port of
 * 127.0.0.1, with the loopback preload so it listens on no other interface, and
 * resolves once that process listens on the port; a process that exits before
 * listening is retried on a fresh port, up to 3 times. The caller must `stop()` it
 * (`afterAll`/`finally`); a forgotten server is SIGKILLed when the worker exits.
 *
 * @throws {Error} if the process exits or does not listen within
 * `startTimeoutMs` (the message carries the tail of its stdout and stderr), or
 * if it listens on any address other than 127.0.0.1.
 * @example
 * const server = await startEverythingHttp('streamableHttp');
 * try {
 *   await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
 * } finally {
 *   await client.close();
 *   await server.stop();
 * }
 */
export async function startEverythingHttp(
  mode: EverythingHttpMode,
  options: StartEverythingHttpOptions = {},
): Promise<EverythingHttpServer> {
  let lastError: Error | undefined;
  for (let attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
    // freePort() closes its probe before the child binds, so another process
    // can take the port in between.
    const result = await attemptStart(mode, await freePort(), options);
    if (result.ok) return result.server;
    lastError = result.error;
    if (!result.retry) break;
  }
  throw lastError ?? new Error(`server-everything ${mode} did not start`);
}
