/**
 * When a process started, as Linux tells it: with the boot id, this names
 * one process for ever, where a pid is reused. A lock names its owner so
 * (`file-lock.ts`).
 */
import { readFile } from 'node:fs/promises';

let bootId: Promise<string> | undefined;

/**
 * When process `pid` started: the boot id and field 22 of `/proc/<pid>/stat`
 * (clock ticks since boot), which together name one process for ever; and
 * whether it has exited and waits to be reaped. Undefined without a readable
 * `/proc` (macOS, Windows, `hidepid`).
 */
export async function processStart(
  pid: number,
): Promise<{ readonly start: string; readonly zombie: boolean } | undefined> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const ticks = fields[22 - 3];
  if (state === undefined || ticks === undefined || !/^\d+$/.test(ticks)) return undefined;
  bootId ??= readFile('/proc/sys/kernel/random/boot_id', 'utf8').then(
    (text) => text.trim(),
    () => '',
  );
  return { start: `${await bootId}:${ticks}`, zombie: state === 'Z' };
}
