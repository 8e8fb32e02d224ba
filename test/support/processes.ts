import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** How long {@link expectNoNewChildren} waits for stray processes to exit, in milliseconds. */
export const DEFAULT_SETTLE_TIMEOUT_MS = 3_000;

/** How often {@link waitFor} and {@link expectNoNewChildren} poll, in milliseconds. */
export const DEFAULT_POLL_INTERVAL_MS = 25;

/** One line of `/proc/<pid>/stat`, reduced to what the helpers need. */
interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  /** One-letter state: R, S, D, Z (zombie), X (dead), ... */
  readonly state: string;
}

/**
 * Parses `/proc/<pid>/stat`. The second field is the command name in
 * parentheses and may itself contain spaces and parentheses ("(sd-pam)",
 * "(a) b)"), so the fields after it are read from the last ")".
 */
function parseStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const [state, ppid] = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  if (state === undefined || ppid === undefined || !Number.isInteger(pid)) return undefined;
  return { pid, ppid: Number(ppid), state };
}

/** Reads one process's stat line; `undefined` when it is gone or unreadable. */
function readStat(pid: number): ProcStat | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    // The process exited between listing /proc and reading it.
    return undefined;
  }
}

/** A zombie or dead entry has exited; only its parent's wait() is missing. */
function hasExited(stat: ProcStat): boolean {
  return stat.state === 'Z' || stat.state === 'X';
}

/**
 * Every live descendant (children, grandchildren, ...) of `pid`, read from
 * `/proc/<pid>/stat` on Linux, sorted ascending. Zombies count as exited and are
 * left out.
 *
 * @param pid - root of the tree; defaults to the current process (the vitest worker).
 * @throws {Error} if `/proc` cannot be listed (not Linux).
 * @example
 * const before = childPids();
 * // ... start and stop servers ...
 * expect(await expectNoNewChildren(before)).toEqual([]);
 */
export function childPids(pid: number = process.pid): number[] {
  const childrenOf = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat === undefined || hasExited(stat)) continue;
    const siblings = childrenOf.get(stat.ppid);
    if (siblings === undefined) childrenOf.set(stat.ppid, [stat.pid]);
    else siblings.push(stat.pid);
  }
  const descendants: number[] = [];
  const queue = [pid];
  for (let parent = queue.shift(); parent !== undefined; parent = queue.shift()) {
    for (const child of childrenOf.get(parent) ?? []) {
      descendants.push(child);
      queue.push(child);
    }
  }
  return descendants.sort((a, b) => a - b);
}

/**
 * Whether process `pid` exists and has not exited. A zombie reports `false`.
 * Uses `/proc` where it exists and falls back to signal 0 elsewhere.
 */
export function isAlive(pid: number): boolean {
  const stat = readStat(pid);
  if (stat !== undefined) return !hasExited(stat);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

/** A TCP socket in LISTEN state, as {@link listeningSockets} reports it. */
export interface ListeningSocket {
  /** Local address: `127.0.0.1`, `0.0.0.0`, `::`, `::1`, ... */
  readonly address: string;
  readonly port: number;
}

/**
 * Decodes an address of `/proc/net/tcp{,6}`: hex, in 32-bit words of host
 * (little-endian) byte order.
 */
function decodeProcAddress(hex: string): string {
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const wordBytes = hex.slice(word, word + 8).match(/../g) ?? [];
    bytes.push(...wordBytes.reverse().map((byte) => parseInt(byte, 16)));
  }
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < bytes.length; i += 2) {
    groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  }
  // The URL parser prints an IPv6 address in its canonical compressed form.
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

/** Inodes of the sockets process `pid` has open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1] !== undefined) inodes.add(match[1]);
    } catch {
      // The descriptor was closed while we listed them.
    }
  }
  return inodes;
}

/**
 * TCP sockets (IPv4 and IPv6) that process `pid` itself holds in LISTEN state,
 * read from `/proc/<pid>/net/tcp{,6}` and `/proc/<pid>/fd` on Linux. Unlike a
 * connection attempt, this tells which process listens and on which address.
 * Returns `[]` for a process that is gone.
 *
 * @example
 * expect(listeningSockets(server.pid)).toEqual([{ address: '127.0.0.1', port: server.port }]);
 */
export function listeningSockets(pid: number): ListeningSocket[] {
  let inodes: Set<string>;
  try {
    inodes = socketInodes(pid);
  } catch {
    return [];
  }
  const sockets: ListeningSocket[] = [];
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (state !== '0A' || local === undefined || inode === undefined || !inodes.has(inode)) {
        continue;
      }
      const [addressHex = '', portHex = ''] = local.split(':');
      sockets.push({ address: decodeProcAddress(addressHex), port: parseInt(portHex, 16) });
    }
  }
  return sockets;
}

/** Values a {@link waitFor} predicate returns while the condition does not hold yet. */
export type Falsy = false | 0 | '' | null | undefined;

/** Options for {@link waitFor}. */
export interface WaitForOptions {
  /** Reject when the predicate has not returned a truthy value within this time. */
  readonly timeoutMs: number;
  /**
   * Pause between two calls of the predicate.
   * @default DEFAULT_POLL_INTERVAL_MS
   */
  readonly intervalMs?: number;
  /** Named in the timeout error: "timed out after 5000 ms waiting for <description>". */
  readonly description?: string;
  /** Stops polling and rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/**
 * Calls `predicate` until it returns (or resolves to) a truthy value and
 * resolves with that value. Polling with a bound replaces fixed sleeps in tests.
 * A predicate that throws rejects at once.
 *
 * @throws {Error} after `timeoutMs`, naming `description`; or the abort reason.
 * @example
 * await waitFor(() => !isAlive(pid), { timeoutMs: 2_000, description: `pid ${pid} to exit` });
 */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  options: WaitForOptions,
): Promise<Exclude<T, Falsy>> {
  const intervalMs = options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const value = await predicate();
    if (value) return value as Exclude<T, Falsy>;
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0) {
      throw new Error(
        `timed out after ${options.timeoutMs} ms waiting for ${options.description ?? 'condition'}`,
      );
    }
    await pause(Math.min(intervalMs, remainingMs), options.signal);
  }
}

/** Resolves after `ms`, or rejects early with the signal's reason. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Options for {@link expectNoNewChildren}. */
export interface ExpectNoNewChildrenOptions {
  /**
   * How long to wait for processes that are still shutting down.
   * @default DEFAULT_SETTLE_TIMEOUT_MS
   */
  readonly timeoutMs?: number;
  /**
   * Pause between two looks at `/proc`.
   * @default DEFAULT_POLL_INTERVAL_MS
   */
  readonly intervalMs?: number;
  /**
   * Process whose descendants are checked.
   * @default process.pid
   */
  readonly pid?: number;
}

/**
 * Waits up to `timeoutMs` for every descendant that is not in `before` to
 * exit, then returns the ones still alive: an empty array means nothing was
 * left behind. It returns rather than throws so that
 * `expect(await expectNoNewChildren(before)).toEqual([])` shows the pids.
 *
 * @param before - `childPids()` taken before the test started its processes.
 * @example
 * const before = childPids();
 * const server = await startEverythingHttp('sse');
 * await server.stop();
 * expect(await expectNoNewChildren(before)).toEqual([]);
 */
export async function expectNoNewChildren(
  before: readonly number[],
  options: ExpectNoNewChildrenOptions = {},
): Promise<number[]> {
  const known = new Set(before);
  const leftovers = (): number[] => childPids(options.pid).filter((pid) => !known.has(pid));
  try {
    await waitFor(() => leftovers().length === 0, {
      timeoutMs: options.timeoutMs ?? DEFAULT_SETTLE_TIMEOUT_MS,
      intervalMs: options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS,
      description: 'new child processes to exit',
    });
    return [];
  } catch {
    return leftovers();
  }
}
