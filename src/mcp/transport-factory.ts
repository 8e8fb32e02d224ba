import { statSync, type Stats } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpTransportConfig, StdioTransportConfig } from '../config/server-config.js';
import type { CommandLine, CommandWrapper } from '../isolation/command-line.js';
import { boundedFetch } from './bounded-fetch.js';
import { LineBuffer, type ReadBufferLike } from './line-buffer.js';
import { AnswerStreams, RESUME_ATTEMPTS } from './lost-answers.js';
import {
  canStartProcessGroup,
  forgetServerGroupIfEmpty,
  trackServerGroup,
} from './process-tree.js';
import { ReadBudget } from './read-budget.js';

/** Options of {@link createTransport}. */
export interface TransportOptions {
  /** Environment for stdio children, on top of the safe default (or the parent's). */
  readonly env?: Readonly<Record<string, string>>;
  /** Start from the whole parent environment instead of the SDK's safe default. @default false */
  readonly inheritEnv?: boolean;
  readonly wrapCommand?: CommandWrapper;
  /** Called with each chunk a stdio child writes to stderr. */
  readonly onStderr?: (chunk: string) => void;
  /** For `streamable-http`: use the legacy SSE client on the same URL instead. */
  readonly useSseFallback?: boolean;
  /** What the server may make the client read (stdio, HTTP); one per connection, across reconnections. @default a new one */
  readonly readBudget?: ReadBudget;
}

/** A transport ready for `client.connect`, plus what is needed to clean it up. */
export interface TransportHandle {
  readonly transport: Transport;
  /** The transport type actually used (`sse` after a fallback). */
  readonly type: string;
  /** Called after the client closes, e.g. to close an in-memory server. */
  readonly dispose: () => Promise<void>;
  /** The child's pid, for stdio; still known after it exited. */
  readonly pid: () => number | null;
  /** True when the child leads a process group of its own (its pid is the group's id). */
  readonly processGroup: boolean;
  /**
   * Streamable HTTP: the requests' answer streams, so that one that ends
   * without its answer fails its request at once (`watch` it once the
   * client is connecting).
   */
  readonly answers?: AnswerStreams;
  /**
   * Stdio and HTTP: what the server may make the client read (`count` the
   * transport once the client is connecting, so that answers to the
   * client's own requests are told apart).
   */
  readonly budget?: ReadBudget;
}

/** Builds the SDK client transport for one server endpoint. */
export async function createTransport(
  config: McpTransportConfig,
  options: TransportOptions = {},
): Promise<TransportHandle> {
  const budget = options.readBudget ?? new ReadBudget();
  switch (config.type) {
    case 'stdio':
      return stdioTransport(config, options, budget);
    case 'sse':
      return sseTransport(config.url, config.headers, budget);
    case 'streamable-http':
      if (options.useSseFallback === true) return sseTransport(config.url, config.headers, budget);
      return streamableHttpTransport(config.url, config.headers, budget);
    case 'in-memory': {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const server = config.server;
      await server.connect(serverSide);
      return {
        transport: clientSide,
        type: 'in-memory',
        dispose: () => server.close(),
        pid: () => null,
        processGroup: false,
      };
    }
  }
}

/**
 * The SDK's own reconnection timing for streamable HTTP, given explicitly:
 * how often it tries to resume a stream must be known to `AnswerStreams`.
 */
const SDK_RECONNECTION = {
  initialReconnectionDelay: 1_000,
  maxReconnectionDelay: 30_000,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: RESUME_ATTEMPTS,
} as const;

/** The streamable-HTTP transport, with its requests' answer streams watched. */
function streamableHttpTransport(
  url: string,
  headers: Readonly<Record<string, string>> | undefined,
  budget: ReadBudget,
): TransportHandle {
  const answers = new AnswerStreams();
  const [endpoint, options] = httpOptions(url, headers, 'exact', budget, answers);
  const transport = new StreamableHTTPClientTransport(endpoint, {
    ...options,
    reconnectionOptions: SDK_RECONNECTION,
  });
  return { ...httpHandle(transport, 'streamable-http', budget), answers };
}

/** The legacy SSE transport. */
function sseTransport(
  url: string,
  headers: Readonly<Record<string, string>> | undefined,
  budget: ReadBudget,
): TransportHandle {
  const transport = new SSEClientTransport(...httpOptions(url, headers, 'directory', budget));
  return httpHandle(transport, 'sse', budget);
}

function stdioTransport(
  config: StdioTransportConfig,
  options: TransportOptions,
  budget: ReadBudget,
): TransportHandle {
  // Checked here: spawn's own error names the command it ran (`setsid`), not the directory.
  if (config.cwd !== undefined) assertDirectory(config.cwd);
  // The agent's own secrets live in its environment: a server sees only what it needs.
  const env: Record<string, string> = {};
  const base = options.inheritEnv === true ? process.env : getDefaultEnvironment();
  for (const [key, value] of Object.entries(base)) if (value !== undefined) env[key] = value;
  Object.assign(env, options.env);
  let line: CommandLine = { command: config.command, args: config.args ?? [], env };
  if (options.wrapCommand !== undefined) line = options.wrapCommand(line);
  // A group of its own: whatever the server spawns in it can be ended with it
  // (setsid execs in place, so the pid is the server's); a process that starts a
  // session of its own leaves it (see `#teardown` in server-connection.ts).
  const processGroup = canStartProcessGroup();
  if (processGroup) line = { ...line, command: 'setsid', args: [line.command, ...line.args] };
  const transport = new StdioClientTransport({
    command: line.command,
    args: [...line.args],
    env: { ...line.env },
    stderr: 'pipe',
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
  });
  // With stderr 'pipe', the SDK hands out a PassThrough before spawning; reading it
  // keeps a chatty server from blocking on a full pipe.
  const stderr = transport.stderr as Readable | null;
  if (stderr !== null) {
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => options.onStderr?.(chunk));
  }
  const buffer = useLineBuffer(transport);
  if (buffer !== undefined) holdReadingWhenSpent(transport, buffer, stderr, budget);
  if (processGroup) trackGroupOnStart(transport);
  let known: number | null = null;
  const pid = (): number | null => {
    known = transport.pid ?? known;
    return known;
  };
  const dispose = (): Promise<void> => {
    budget.release();
    return Promise.resolve();
  };
  return { transport, type: 'stdio', dispose, pid, processGroup, budget };
}

/**
 * Counts what a stdio server writes, on stdout and stderr, in `budget`,
 * and holds reading both while the budget is spent: each is paused (its
 * pipe fills, and the server's writes block) until the refill, and then
 * what is buffered is read on. On close, what the server still writes is
 * read and dropped, so that a held server's output does not keep its
 * process from ending. Reads the SDK's private `_process` and
 * `processReadBuffer`; without them nothing is held (a test fails then).
 */
function holdReadingWhenSpent(
  transport: StdioClientTransport,
  buffer: LineBuffer,
  stderr: Readable | null,
  budget: ReadBudget,
): void {
  const sdk = transport as unknown as {
    _process?: ChildProcess;
    processReadBuffer?: () => void;
  };
  /** The stdout paused until the refill, if any. */
  let held: Readable | undefined;
  /** Closed: nothing is held any more (the budget lives on, for the next transport). */
  let closed = false;
  buffer.meter = {
    chunk: (bytes) => budget.read(bytes),
    line: () => budget.spend(),
    holdsBack: () => {
      if (held !== undefined) return true;
      if (closed || !budget.spent) return false;
      const stdout = sdk._process?.stdout;
      const readOn = sdk.processReadBuffer;
      if (stdout == null || typeof readOn !== 'function') return false;
      held = stdout;
      stdout.pause();
      void budget.refilled().then(() => {
        if (held !== stdout) return; // closed meanwhile
        held = undefined;
        readOn.call(transport); // what is buffered, which may hold again
        if (held === undefined) stdout.resume();
      });
      return true;
    },
  };
  // Only read for its last lines: held as stdout is, and let go by the close.
  let stderrHeld = false;
  stderr?.on('data', (chunk: string) => {
    budget.read(Buffer.byteLength(chunk));
    if (closed || stderrHeld || !budget.spent) return;
    stderrHeld = true;
    stderr.pause();
    void budget.refilled().then(() => {
      stderrHeld = false;
      stderr.resume();
    });
  });
  const close = transport.close.bind(transport);
  transport.close = () => {
    const stdout = held;
    held = undefined;
    closed = true;
    budget.release();
    if (stdout !== undefined) {
      stdout.removeAllListeners('data');
      stdout.resume();
    }
    return close();
  };
}

/**
 * Registers the child's process group once `start` has spawned it (the
 * spawn happens synchronously inside `start`), and forgets it when the
 * child has been reaped and left nothing behind in its group; see
 * `killServerGroupsSync`. The child is read from the SDK's private
 * `_process` field for its `exit` event; without it, `endProcesses` still
 * forgets the group once it has ended it.
 */
function trackGroupOnStart(transport: StdioClientTransport): void {
  const start = transport.start.bind(transport);
  transport.start = (): Promise<void> => {
    const started = start();
    const group = transport.pid;
    if (group !== null) {
      trackServerGroup(group);
      const child = (transport as unknown as { _process?: ChildProcess })._process;
      child?.once('exit', () => forgetServerGroupIfEmpty(group));
    }
    return started;
  };
}

/**
 * Gives the transport a {@link LineBuffer} in place of the SDK's read
 * buffer (a field the SDK does not export): the same messages and limit,
 * in linear work. Left as it is if the SDK has changed the field (and
 * undefined returned); a test fails then.
 */
export function useLineBuffer(transport: StdioClientTransport): LineBuffer | undefined {
  const fields = transport as unknown as { _readBuffer?: Partial<ReadBufferLike> };
  const current = fields._readBuffer;
  if (typeof current?.append !== 'function' || typeof current.readMessage !== 'function') {
    return undefined;
  }
  const buffer = new LineBuffer();
  fields._readBuffer = buffer;
  return buffer;
}

function httpHandle(transport: Transport, type: string, budget: ReadBudget): TransportHandle {
  return {
    transport,
    type,
    dispose: () => {
      budget.release();
      return Promise.resolve();
    },
    pid: () => null,
    processGroup: false,
    budget,
  };
}

/**
 * The URL and options both HTTP transports take: the headers, and a fetch
 * that bounds each message and sends only to the configured endpoint.
 */
function httpOptions(
  url: string,
  headers: Readonly<Record<string, string>> | undefined,
  paths: 'exact' | 'directory',
  budget: ReadBudget,
  answers?: AnswerStreams,
): [URL, { requestInit?: RequestInit; fetch: FetchLike }] {
  const endpoint = new URL(url);
  const fetch = boundedFetch(
    answers === undefined ? { endpoint, paths, budget } : { endpoint, paths, budget, answers },
  );
  return [
    endpoint,
    headers === undefined ? { fetch } : { requestInit: { headers: { ...headers } }, fetch },
  ];
}

/** @throws Error naming `cwd` when it is not a directory that exists. */
function assertDirectory(cwd: string): void {
  let found: Stats | undefined;
  try {
    found = statSync(cwd);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new Error(
      `transport.cwd ${JSON.stringify(cwd)} cannot be used as the server's working directory (${code})`,
    );
  }
  if (!found.isDirectory()) {
    throw new Error(`transport.cwd ${JSON.stringify(cwd)} is not a directory`);
  }
}
