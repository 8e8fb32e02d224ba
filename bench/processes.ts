/** Process bookkeeping for the runner: nothing a benchmark starts may outlive it. */
import { readFileSync } from 'node:fs';
import { childPids } from '../test/support/processes.js';

/** The command line of a process, or `gone`. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return 'gone';
  }
}

/**
 * Descendants of this process that were not in `before`, after waiting up
 * to `settleMs` for them to exit, each as `pid (command line)`.
 */
export async function leftovers(before: ReadonlySet<number>, settleMs = 3_000): Promise<string[]> {
  const deadline = Date.now() + settleMs;
  // tsx's esbuild service starts when a comparison first loads `src/`, and ends with this process.
  const fresh = (): number[] =>
    childPids().filter((pid) => !before.has(pid) && !/esbuild --service/.test(commandLine(pid)));
  let left = fresh();
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = fresh();
  }
  return left.map((pid) => `${pid} (${commandLine(pid)})`);
}
