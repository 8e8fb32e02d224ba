/**
 * `mcp-sections debug`: the trace viewer. Serves a trace file, a directory
 * of traces, or a session followed live through Redis, on loopback behind
 * a token, until interrupted; or writes a static export with `--output`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PRIVATE_FILE_MODE } from '../core/atomic-file.js';
import { messageOf } from '../core/errors.js';
import { TraceError } from '../trace/errors.js';
import { RemoteTrace } from '../trace/viewer/remote-trace.js';
import { exportTraceViewer } from '../trace/viewer/static-export.js';
import { checkOutputDirectory } from './output-path.js';
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
      const directory = path.resolve(options.output);
      const source = await fileSource(options);
      // Checked last before the export: a link planted during the read is seen too.
      await checkOutputDirectory(directory);
      const files = await exportTraceViewer(source, directory);
      io.stderr.write(
        `wrote ${files.length} file(s); open ${files[0] ?? options.output} in a browser (works from file://)\n`,
      );
      return EXIT_CODES.ok;
    }
    const source =
      options.redis === undefined ? await fileSource(options) : await redisSource(options);
    let opened: OpenedPage | undefined;
    const viewer = await startTraceViewer(source, {
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(port === undefined ? {} : { port }),
    });
    try {
      io.stdout.write(`${viewer.url}\n`);
      io.stderr.write('trace viewer running (read-only, this machine only); Ctrl-C stops it\n');
      if (options.open === true) opened = await openBrowser(viewer.url, io.stderr);
      await new Promise<void>((resolve) => {
        if (context.signal.aborted) resolve();
        else context.signal.addEventListener('abort', () => resolve(), { once: true });
      });
    } finally {
      try {
        await viewer.close();
      } finally {
        await opened?.remove();
      }
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

/** The page handed to the browser, removed when the viewer stops. */
interface OpenedPage {
  remove(): Promise<void>;
}

/**
 * Opens the viewer in the desktop's browser; a failure is reported, not
 * fatal. The token URL is never put on a command line: the opener's and
 * the browser's arguments are readable by every user of the machine (`ps`,
 * `/proc/<pid>/cmdline`), and the token is all that guards the viewer. The
 * browser gets a `file://` page instead, which only this user can read
 * (0600, created exclusively in a fresh 0700 directory) and which sends it
 * on to the URL.
 */
async function openBrowser(
  url: string,
  stderr: { write(text: string): unknown },
): Promise<OpenedPage | undefined> {
  let dir: string;
  try {
    dir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-debug-')); // mode 0700
  } catch (error) {
    stderr.write(`could not open a browser (${messageOf(error)}); open the URL above\n`);
    return undefined;
  }
  const remove = (): Promise<void> => rm(dir, { recursive: true, force: true });
  const page = path.join(dir, 'open-trace-viewer.html');
  try {
    await writeFile(page, redirectPage(url), { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  } catch (error) {
    await remove();
    stderr.write(`could not open a browser (${messageOf(error)}); open the URL above\n`);
    return undefined;
  }
  const target = pathToFileURL(page).href;
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [target]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', target]]
        : ['xdg-open', [target]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', () =>
      stderr.write(`could not open a browser (${command}); open the URL above\n`),
    );
    child.unref();
  } catch {
    stderr.write(`could not open a browser (${command}); open the URL above\n`);
  }
  return { remove };
}

/** A page that sends the browser on to `url` at once, without a referrer. */
function redirectPage(url: string): string {
  const href = escapeHtml(url);
  return [
    '<!doctype html>',
    '<meta charset="utf-8">',
    '<meta name="referrer" content="no-referrer">',
    `<meta http-equiv="refresh" content="0;url=${href}">`,
    '<title>mcp-sections debug</title>',
    `<p><a href="${href}">Open the trace viewer</a></p>`,
    '',
  ].join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${String(char.charCodeAt(0))};`);
}
