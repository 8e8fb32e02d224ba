import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { pause } from '../core/pause.js';

/** How long processes get between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 2_000;

let setsidAvailable: boolean | undefined;

/**
 * Whether stdio servers can be started as the leader of a process group
 * of their own (`setsid`, Linux), so that everything they spawn, even what
 * outlives them, can be ended together.
 */
export function canStartProcessGroup(): boolean {
  if (setsidAvailable !== undefined) return setsidAvailable;
  if (process.platform !== 'linux') return (setsidAvailable = false);
  const probe = spawnSync('setsid', ['true'], { stdio: 'ignore', timeout: 5_000 });
  setsidAvailable = probe.error === undefined && probe.status === 0;
  return setsidAvailable;
}

/**
 * The pids of `pid`'s descendants now, children first (Linux, from
 * `/proc`); empty elsewhere or when `/proc` cannot be read.
 */
export function descendants(pid: number): number[] {
  if (process.platform !== 'linux') return [];
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(entry);
    if (parent === undefined) continue;
    const list = children.get(parent) ?? [];
    list.push(Number(entry));
    children.set(parent, list);
  }
  const out: number[] = [];
  const queue = [...(children.get(pid) ?? [])];
  while (queue.length > 0) {
    const next = queue.shift()!;
    out.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return out;
}

function parentOf(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: parse after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}

/**
 * Ends what a stdio server left: the processes in `pids` and, when
 * `group` is set, every process of that process group (what the server
 * spawned and detached from itself included). SIGTERM first, SIGKILL to
 * whatever is still there after `graceMs`. Never throws.
 */
export async function endProcesses(
  pids: readonly number[],
  group: number | undefined,
  graceMs: number = DEFAULT_KILL_GRACE_MS,
): Promise<void> {
  const targets = [...(group === undefined ? [] : [-group]), ...pids];
  const alive = (): number[] => targets.filter((target) => signal(target, 0));
  if (alive().length === 0) return;
  for (const target of alive()) signal(target, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && alive().length > 0) await pause(25);
  for (const target of alive()) signal(target, 'SIGKILL');
  // SIGKILL is delivered at once but takes effect a moment later: return once they are gone.
  const killedBy = Date.now() + KILL_SETTLE_MS;
  while (Date.now() < killedBy && alive().length > 0) await pause(10);
  if (group !== undefined && !signal(-group, 0)) liveGroups.delete(group);
}

/**
 * The process groups of the stdio servers this process started and has
 * not yet seen end: what {@link killServerGroupsSync} kills when the
 * process exits without disconnecting them (a second Ctrl-C).
 */
const liveGroups = new Set<number>();

/**
 * Remembers `group`, the process group a stdio server leads, until it has
 * no process left. Called when the server is spawned.
 */
export function trackServerGroup(group: number): void {
  liveGroups.add(group);
}

/**
 * Forgets `group` when none of its processes is left. Called when its
 * leader has been reaped; a group whose leader left children behind stays
 * until {@link endProcesses} has ended them.
 */
export function forgetServerGroupIfEmpty(group: number): void {
  if (!signal(-group, 0)) liveGroups.delete(group);
}

/**
 * SIGKILLs every tracked server process group, synchronously: for an exit
 * that skips the normal disconnect (`process.on('exit')` runs no async
 * code), so that no server outlives this process. Never throws.
 */
export function killServerGroupsSync(): void {
  for (const group of liveGroups) signal(-group, 'SIGKILL');
  liveGroups.clear();
}

/** How long to wait for SIGKILLed processes to be gone. */
const KILL_SETTLE_MS = 1_000;

/** Sends `sig` (0 only asks whether it exists); false when nothing received it. */
function signal(target: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(target, sig);
    if (sig === 0 && target > 0) return !isZombie(target);
    return true;
  } catch {
    return false;
  }
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}
