import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The repository root. */
export const repo = path.resolve(import.meta.dirname, '../..');
const main = path.join(repo, 'src', 'cli', 'main.ts');

/** What a CLI run printed and how it ended. */
export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A CLI process and how it will end. */
export interface StartedCli {
  readonly child: ChildProcess;
  readonly done: Promise<CliRun>;
}

/**
 * Starts `mcp-sections <args>` as its own process (`node --import tsx`),
 * stdin closed unless given. Not through the `tsx` command: it runs the
 * CLI in a child and relays signals to it, and when the child is slow to
 * say it heard one (a loaded machine) it sends the signal again, which the
 * CLI reads as a second interrupt, "exit now".
 */
export function startCliProcess(
  args: readonly string[],
  options: { stdin?: string } = {},
): StartedCli {
  const child = spawn(process.execPath, ['--import', 'tsx', main, ...args], {
    cwd: repo,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const done = new Promise<CliRun>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  child.stdin.end(options.stdin ?? '');
  return { child, done };
}

/** Runs `mcp-sections <args>` to the end. */
export function runCliProcess(
  args: readonly string[],
  options: { stdin?: string } = {},
): Promise<CliRun> {
  return startCliProcess(args, options).done;
}

/**
 * Pids of live processes whose environment holds `NAME=value`. A server the
 * CLI started (and should have stopped) is found this way even after the CLI
 * exited and the server was re-parented away from the test process.
 */
export function processesWithEnv(name: string, value: string): number[] {
  const needle = `${name}=${value}`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (/\) [ZX] /.test(stat)) continue;
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (environ.includes(needle)) found.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/** The built executable, as `npm run build` leaves it. */
export const builtMain = path.join(repo, 'dist', 'src', 'cli', 'main.js');

/**
 * Runs the built `node dist/src/cli/main.js <args>`, building it first when
 * it is missing or older than a file in `src/cli/`.
 */
export async function runBuiltCli(args: readonly string[]): Promise<CliRun> {
  ensureBuilt();
  const child = spawn(process.execPath, [builtMain, ...args], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise<CliRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * Builds `dist/` when a source file is newer than `dist/src/cli/main.js`:
 * any file of `src/`, since the CLI (and a module it loads that imports
 * `mcp-sections`) runs the whole library from `dist/`.
 */
export function ensureBuilt(): void {
  const built = existsSync(builtMain) ? statSync(builtMain).mtimeMs : 0;
  const sources = path.join(repo, 'src');
  const newest = Math.max(
    ...readdirSync(sources, { recursive: true, encoding: 'utf8' }).map(
      (name) => statSync(path.join(sources, name)).mtimeMs,
    ),
  );
  if (newest > built) {
    execFileSync(
      process.execPath,
      [path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      { cwd: repo },
    );
  }
}
