/**
 * The local processes of a session that run outside any isolation, and the
 * directories its isolated sides write. A server's isolated side (a
 * sandbox, or an isolated deployment that is a local process) writes into
 * its working directory; an unsandboxed process of the same session with
 * network, running in that directory or inside it, could read what it
 * writes there and send it out: the same server in a section that does not
 * isolate it, or that isolates it only at a higher level, or a normal
 * deployment left running beside its isolated one.
 *
 * So, per session (all its sections, every pool): an isolated side does
 * not take calls while such a process runs, unless that process is being
 * stopped (then it waits for its end), and no such process starts once an
 * isolated side writes there. Processes of other workers of a shared
 * session are not seen here (see docs/isolation.md).
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { McpTransportConfig } from '../config/server-config.js';
import type { McpServerConnection } from './server-connection.js';

/** An unsandboxed local process of a session's server, and where it runs. */
interface LocalProcess {
  readonly serverName: string;
  readonly directory: string;
  readonly connection: McpServerConnection;
}

/** What one session has: its unsandboxed processes, those being stopped, and the directories isolated sides write. */
interface SessionProcesses {
  readonly unsandboxed: Set<LocalProcess>;
  /** Each connection a switching route is stopping, and the end of its process. */
  readonly stopping: Map<McpServerConnection, Promise<void>>;
  /**
   * Each isolated side that writes on the host, by server and directory:
   * kept for the session's life, as what it wrote stays there.
   */
  readonly isolatedWrites: Map<string, { readonly serverName: string; readonly directory: string }>;
}

const bySession = new WeakMap<object, SessionProcesses>();

function processesOf(session: object): SessionProcesses {
  let processes = bySession.get(session);
  if (processes === undefined) {
    processes = { unsandboxed: new Set(), stopping: new Map(), isolatedWrites: new Map() };
    bySession.set(session, processes);
  }
  return processes;
}

/**
 * How long a switch waits for the normal process it released to end, past
 * the calls still in flight on it: its kill grace (the end of its stdin,
 * then SIGTERM, then SIGKILL) with room to spare. Past it, another holder
 * keeps the process (a pooled one), and the route fails closed rather
 * than wait for ever.
 */
export const NORMAL_END_MS = 15_000;

/** Whether `ended` settles within `ms` (0: whether it has settled already, after one turn). */
export function endsWithin(ended: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref?.();
  });
  return Promise.race([
    ended.then(
      () => true,
      () => true,
    ),
    late,
  ]).finally(() => clearTimeout(timer));
}

/**
 * The directory a stdio server runs in (its `cwd`, else this process's), as
 * the file system resolves it: one directory reached by two paths is one.
 * Undefined for any other transport, which starts no local process.
 */
export function workingDirectoryOf(transport: McpTransportConfig): string | undefined {
  if (transport.type !== 'stdio') return undefined;
  const directory = path.resolve(transport.cwd ?? process.cwd());
  try {
    return realpathSync(directory);
  } catch {
    return directory; // not there (yet): the server's start will say so
  }
}

/**
 * Whether `directory` is `written` or inside it: a process running there
 * reads what is written by relative paths. One running above it could
 * read it too, by its path, as any other process on the host could: that
 * is not what this checks (a stdio server without a `cwd` runs in this
 * process's directory, above most workspaces).
 */
function within(directory: string, written: string): boolean {
  if (directory === written) return true;
  return directory.startsWith(written.endsWith(path.sep) ? written : `${written}${path.sep}`);
}

/** Whether the connection's process runs (or is starting, or starting again). */
function runs(connection: McpServerConnection): boolean {
  const { state } = connection;
  return state === 'connecting' || state === 'connected' || state === 'reconnecting';
}

/**
 * Notes `connection` (an unsandboxed stdio connection) as one of the
 * session's local processes, for as long as it lives.
 */
export function noteUnsandboxedProcess(
  session: object,
  serverName: string,
  directory: string,
  connection: McpServerConnection,
): void {
  const { unsandboxed } = processesOf(session);
  const entry: LocalProcess = { serverName, directory, connection };
  unsandboxed.add(entry);
  const forget = (): boolean => unsandboxed.delete(entry);
  connection.ended.then(forget, forget);
}

/**
 * Why an unsandboxed process may not start in `directory` now: an isolated
 * side of the session writes there. Undefined when it may.
 */
export function isolatedWriterIn(session: object, directory: string): string | undefined {
  for (const writer of processesOf(session).isolatedWrites.values()) {
    if (within(directory, writer.directory)) {
      return `the session's private data is written in ${JSON.stringify(writer.directory)} by the isolated side of server "${writer.serverName}", and a process started there without isolation could read it and send it out`;
    }
  }
  return undefined;
}

/** The ends of every process the session's switching routes are stopping. */
export function stoppingEnds(session: object): Promise<void>[] {
  return [...processesOf(session).stopping.values()].map((ended) => ended.catch(() => undefined));
}

/**
 * Notes that `connection`'s process is being stopped by a switch; other
 * isolated sides of the session wait for `ended` rather than refuse.
 */
export function noteStopping(
  session: object,
  connection: McpServerConnection,
  ended: Promise<void>,
): void {
  const { stopping } = processesOf(session);
  stopping.set(connection, ended);
  const settled = (): void => {
    if (stopping.get(connection) === ended) stopping.delete(connection);
  };
  ended.then(settled, settled);
}

/**
 * Makes ready an isolated side of `serverName` that writes in `directory`:
 * waits for every unsandboxed process of the session running there (or
 * inside it) that is being stopped (or closed and not yet gone), then
 * notes the directory as written by an isolated side, for the session's
 * life (what it writes stays there), so that none starts there again.
 *
 * @returns why the isolated side may not take calls (an unsandboxed process
 *   of another server, or of this one in another section, runs there, and
 *   is not being stopped); then nothing is noted.
 */
export async function clearForIsolatedWrites(
  session: object,
  serverName: string,
  directory: string,
): Promise<string | undefined> {
  const processes = processesOf(session);
  for (;;) {
    const waits: Promise<void>[] = [];
    const running: string[] = [];
    for (const local of processes.unsandboxed) {
      if (!within(local.directory, directory)) continue;
      const stopping = processes.stopping.get(local.connection);
      if (stopping !== undefined) waits.push(stopping);
      else if (runs(local.connection)) {
        running.push(`"${local.serverName}" (in ${JSON.stringify(local.directory)})`);
      }
      // Closed: its process is being ended. Idle or failed: it runs none.
      else if (local.connection.state === 'closed') waits.push(local.connection.ended);
    }
    if (running.length > 0) {
      const names = [...new Set(running)].join(', ');
      return `server ${names} of this session runs without isolation where the isolated side of "${serverName}" would write the session's private data (${JSON.stringify(directory)}): it could read it there and send it out`;
    }
    if (waits.length === 0) {
      // Noted with no turn since the last look: no process started there meanwhile.
      processes.isolatedWrites.set(JSON.stringify([serverName, directory]), {
        serverName,
        directory,
      });
      return undefined;
    }
    await Promise.all(waits.map((wait) => wait.catch(() => undefined)));
  }
}
