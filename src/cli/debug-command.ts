/**
 * `mcp-sections debug`: the trace viewer. Serves a trace file, a directory
 * of traces, or a session followed live through Redis, on loopback behind
 * a token, until interrupted; or writes a static export with `--output`.
 */
import { spawn } from 'node:child_process';
import { TraceError } from '../trace/errors.js';
import { RemoteTrace } from '../trace/viewer/remote-trace.js';
import { exportTraceViewer } from '../trace/viewer/static-export.js';
import {
  fileTraceSource,
  memoryTraceSource,
  type TraceSource,
} from '../trace/viewer/trace-source.js';
import { startTraceViewer } from '../trace/viewer/viewer-server.js';
import type { CommandContext } from './commands.js';
import { CliError, EXIT_CODES, type ExitCode } from './exit-codes.js';
import { SecretRedactor, urlSecrets } from '../mcp/redact.js';

/** The command line of `debug`, parsed. */
export interface DebugCommandOptions {
  /** A trace file or a directory of traces; absent with `redis`. */
  readonly target?: string;
  readonly host?: string;
  readonly port?: string;
  /** Open the page in the default browser. */
  readonly open?: boolean;
  /** Write a static export here instead of serving. */
  readonly output?: string;
  /** Follow a session's event stream on this Redis server. */
  readonly redis?: string;
  /** The session to follow (with `redis`). */
  readonly session?: string;
}

/** Runs `debug`; resolves when the viewer stopped (interrupt) or the export is written. */
export async function debugCommand(
  options: DebugCommandOptions,
  context: CommandContext,
): Promise<ExitCode> {
  const { io } = context;
  const port = parsePort(options.port);
  try {
    if (options.output !== undefined) {
      const source = await fileSource(options);
      const files = await exportTraceViewer(source, options.output);
      io.stderr.write(
        `wrote ${files.length} file(s); open ${files[0] ?? options.output} in a browser (works from file://)\n`,
      );
      return EXIT_CODES.ok;
    }
    const source =
      options.redis === undefined ? await fileSource(options) : await redisSource(options);
    const viewer = await startTraceViewer(source, {
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(port === undefined ? {} : { port }),
    });
    try {
      io.stdout.write(`${viewer.url}\n`);
      io.stderr.write('trace viewer running (read-only, this machine only); Ctrl-C stops it\n');
      if (options.open === true) openBrowser(viewer.url, io.stderr);
      await new Promise<void>((resolve) => {
        if (context.signal.aborted) resolve();
        else context.signal.addEventListener('abort', () => resolve(), { once: true });
      });
    } finally {
      await viewer.close();
    }
    return EXIT_CODES.ok;
  } catch (error) {
    if (!(error instanceof TraceError)) throw error;
    const code = error.code === 'trace-viewer' ? EXIT_CODES.connection : EXIT_CODES.usage;
    throw new CliError(code, error.message, { cause: error });
  }
}

function fileSource(options: DebugCommandOptions): Promise<TraceSource> {
  if (options.target === undefined) {
    throw new CliError(
      EXIT_CODES.usage,
      'debug takes a trace file or a directory of traces (or --redis <url> --session <id>)',
    );
  }
  return fileTraceSource(options.target);
}

/** The session's events from the start of its Redis stream, then as they come. */
async function redisSource(options: DebugCommandOptions): Promise<TraceSource> {
  const { redis, session } = options;
  if (redis === undefined || session === undefined || session === '') {
    throw new CliError(EXIT_CODES.usage, '--redis needs --session <id>, the session to follow');
  }
  // Loaded only here: ioredis is an optional peer of the library.
  const { RedisSessionStore } = await import('../runtime/store/redis-session-store.js');
  const store = new RedisSessionStore({ url: redis, watchChanges: false });
  try {
    const { privateData } = await store.readPrivateData(session);
    const trace = new RemoteTrace({ sessionId: session, sensitivity: privateData.sensitivity });
    await store.subscribeRemote(session, (event) => trace.add(event), { from: 'start' });
    return memoryTraceSource(
      () => trace.current(),
      () => trace.version,
      { live: true, close: () => store.close() },
    );
  } catch (error) {
    await store.close();
    const { shown, redactor } = withoutCredentials(redis);
    throw new CliError(
      EXIT_CODES.connection,
      `session ${JSON.stringify(session)} could not be followed on ${shown}: ${redactor.message(error)}`,
      { cause: error },
    );
  }
}

/**
 * A Redis URL as messages show it: without its user, password and query
 * (ioredis reads `?password=` too), which are masked in the rest of the
 * message as well.
 */
function withoutCredentials(text: string): { shown: string; redactor: SecretRedactor } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { shown: 'the --redis URL', redactor: new SecretRedactor([text]) };
  }
  const redactor = new SecretRedactor(urlSecrets(url));
  url.username = '';
  url.password = '';
  url.search = '';
  return { shown: url.toString(), redactor };
}

function parsePort(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65_535)) {
    throw new CliError(
      EXIT_CODES.usage,
      `--port ${JSON.stringify(text)} must be a port number from 0 to 65535`,
    );
  }
  return port;
}

/** Hands the URL to the desktop's opener; a failure is reported, not fatal. */
function openBrowser(url: string, stderr: { write(text: string): unknown }): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', () =>
      stderr.write(`could not open a browser (${command}); open the URL above\n`),
    );
    child.unref();
  } catch {
    stderr.write(`could not open a browser (${command}); open the URL above\n`);
  }
}
