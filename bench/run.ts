/**
 * `npm run bench`: builds the library (`tsc -p tsconfig.build.json`, so that
 * `dist/` is the code in `src/` now), runs every comparison in its own child
 * process (`node --expose-gc --import tsx bench/child.ts <name>`), prints a
 * table per comparison and the goals met or missed, and — when every
 * comparison of a full run succeeded — writes `bench/results.json`.
 *
 * `npm run bench -- --quick` is a smoke run (a tenth of the calls, no file);
 * `npm run bench -- render scaling` runs only those (no file);
 * `--no-build` uses `dist/` as it is.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { childPids } from '../test/support/processes.js';
import { leftovers } from './processes.js';
import { formatGoals, formatTable } from './report.js';
import type { ComparisonResult } from './stats.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

/** One comparison: its name in `child.ts`, a bound on its time, extra Node flags. */
interface Step {
  readonly name: string;
  readonly timeoutMs: number;
  readonly nodeArgs?: readonly string[];
}

/** Comparisons in the order they run. */
const PLAN: readonly Step[] = [
  { name: 'per-call-in-memory', timeoutMs: 120_000 },
  { name: 'per-call-stdio', timeoutMs: 180_000 },
  { name: 'per-call-parts', timeoutMs: 120_000 },
  { name: 'per-call-swept', timeoutMs: 120_000 },
  { name: 'per-call-alone', timeoutMs: 120_000 },
  // Every collection on the main thread, in the block whose allocations caused it:
  // process.cpuUsage() counts helper threads too, and a helper's marking would
  // otherwise land on whichever contender's block runs next.
  { name: 'own-cpu', timeoutMs: 180_000, nodeArgs: ['--single-threaded-gc'] },
  // A 32 MB young generation: a block of calls allocates a few MB without a collection.
  {
    name: 'allocation',
    timeoutMs: 90_000,
    nodeArgs: ['--min-semi-space-size=32', '--max-semi-space-size=32'],
  },
  { name: 'connect-many', timeoutMs: 240_000 },
  { name: 'render', timeoutMs: 120_000 },
  { name: 'scaling', timeoutMs: 120_000 },
  { name: 'session-stores', timeoutMs: 120_000 },
  { name: 'workers', timeoutMs: 180_000 },
  { name: 'snapshot', timeoutMs: 60_000 },
  { name: 'concurrency', timeoutMs: 90_000 },
  { name: 'connect-five', timeoutMs: 150_000 },
  { name: 'heap', timeoutMs: 120_000 },
  { name: 'disclosure', timeoutMs: 60_000 },
];

const OUTPUT_TAIL = 4_000;

interface Failure {
  readonly name: string;
  readonly reason: string;
}

/** Where `pkg` is installed: the benchmark's peers under bench/peers, the rest at the root. */
function version(pkg: string): string {
  const own = path.join(here, 'peers', 'node_modules', pkg);
  const dir = existsSync(own) ? own : path.join(root, 'node_modules', pkg);
  try {
    return (
      (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version?: string })
        .version ?? '?'
    );
  } catch {
    return 'not installed';
  }
}

function load(): number[] {
  return loadavg().map((n) => Math.round(n * 100) / 100);
}

function machine(): Record<string, unknown> {
  const packages = [
    '@modelcontextprotocol/sdk',
    '@modelcontextprotocol/server-everything',
    '@langchain/mcp-adapters',
    '@langchain/core',
    '@mastra/mcp',
    'zod',
    'ioredis',
  ];
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverageAtStart: load(),
    packages: Object.fromEntries(packages.map((pkg) => [pkg, version(pkg)])),
  };
}

/** Compiles `src/` to `dist/` with the build's own tsconfig. */
function build(): void {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (result.status !== 0)
    throw new Error(`npm run build failed:\n${result.stdout}${result.stderr}`);
}

/** Runs one comparison in a child process; resolves with its result or why it failed. */
function runChild(step: Step, outDir: string, quick: boolean): Promise<ComparisonResult | Failure> {
  const { name, timeoutMs } = step;
  const out = path.join(outDir, `${name}.json`);
  const args = [
    '--expose-gc',
    ...(step.nodeArgs ?? []),
    '--import',
    'tsx',
    path.join(here, 'child.ts'),
    name,
    out,
  ];
  const child = spawn(process.execPath, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, BENCH_QUICK: quick ? '1' : '0' },
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return new Promise((resolve) => {
    // Its stdio servers see their stdin close and exit with it; the others are checked below.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ name, reason: `could not start: ${error.message}` });
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) {
        try {
          resolve(JSON.parse(readFileSync(out, 'utf8')) as ComparisonResult);
        } catch (error) {
          resolve({ name, reason: `no result file: ${String(error)}` });
        }
        return;
      }
      const why = signal === 'SIGKILL' ? `timed out after ${timeoutMs} ms` : `exit ${code}`;
      resolve({ name, reason: `${why}\n${output.trim()}` });
    });
  });
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const quick = argv.includes('--quick');
  const noBuild = argv.includes('--no-build');
  const wanted = argv.filter((arg) => !arg.startsWith('--'));
  const unknown = wanted.filter((name) => !PLAN.some((step) => step.name === name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown comparison ${unknown.join(', ')}; expected some of ${PLAN.map((s) => s.name).join(', ')}`,
    );
  }
  const plan = wanted.length === 0 ? PLAN : PLAN.filter((step) => wanted.includes(step.name));
  if (!noBuild) build();
  const info = machine();
  console.log(
    `mcp-sections benchmarks${quick ? ' (--quick: a smoke run, figures not for quoting)' : ''} — ` +
      `${String(info.cpus)} CPUs (${String(info.cpuModel)}), Node ${process.version}, load ${JSON.stringify(info.loadAverageAtStart)}; library from dist/\n`,
  );
  const before = new Set(childPids());
  const outDir = mkdtempSync(path.join(tmpdir(), 'mcp-sections-bench-'));
  const started = performance.now();
  const results: ComparisonResult[] = [];
  const failures: Failure[] = [];
  try {
    for (const step of plan) {
      process.stdout.write(`## ${step.name} … `);
      const result = await runChild(step, outDir, quick);
      if ('reason' in result) {
        failures.push(result);
        console.log(`FAILED\n${result.reason}\n`);
        continue;
      }
      results.push(result);
      console.log(`${result.seconds.toFixed(1)} s\n\n${formatTable(result.rows)}\n`);
    }
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
  const seconds = (performance.now() - started) / 1_000;
  const goals = formatGoals(results.flatMap((r) => r.rows));
  const met = goals.filter((line) => line.startsWith('- met')).length;
  console.log(`## Goals: ${met} of ${goals.length} met\n`);
  for (const line of goals) console.log(line);
  for (const failure of failures) console.log(`- FAILED ${failure.name}`);
  const left = await leftovers(before);
  console.log(
    `\n${results.length}/${plan.length} comparisons in ${seconds.toFixed(0)} s; processes left behind: ${left.length === 0 ? 'none' : left.join(', ')}`,
  );
  if (wanted.length === 0 && !quick && failures.length === 0) {
    const file = path.join(here, 'results.json');
    const machineInfo = { ...info, loadAverageAtEnd: load() };
    const body = {
      date: new Date().toISOString(),
      seconds: Math.round(seconds),
      machine: machineInfo,
      comparisons: results,
    };
    writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
    console.log(`wrote ${path.relative(root, file)}`);
  }
  if (failures.length > 0 || left.length > 0) process.exitCode = 1;
}

await main();
