/**
 * `npm run bench`: runs every comparison in its own child process
 * (`node --expose-gc --import tsx bench/child.ts <name>`), prints a table of
 * medians and ratios per comparison and a summary of the goals, and — when
 * every comparison ran — writes `bench/results.json`.
 *
 * `npm run bench -- schemas snapshot` runs only those comparisons (and
 * writes no file).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { childPids } from '../test/support/processes.js';
import { leftovers } from './processes.js';
import type { ComparisonResult, ResultRow } from './stats.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

/** Comparisons in the order they run, with a bound on each one's time. */
const PLAN: readonly { readonly name: string; readonly timeoutMs: number }[] = [
  { name: 'per-call-stdio', timeoutMs: 120_000 },
  { name: 'per-call-in-memory', timeoutMs: 120_000 },
  { name: 'own-cost', timeoutMs: 90_000 },
  { name: 'schemas', timeoutMs: 180_000 },
  { name: 'snapshot', timeoutMs: 60_000 },
  { name: 'concurrency', timeoutMs: 90_000 },
  { name: 'connect-five', timeoutMs: 150_000 },
  { name: 'heap', timeoutMs: 120_000 },
];

const OUTPUT_TAIL = 4_000;

interface Failure {
  readonly name: string;
  readonly reason: string;
}

/** Where `pkg` is installed: the benchmark's peers under bench/peers, the rest at the root. */
function packageRoot(pkg: string): string {
  const own = path.join(here, 'peers', 'node_modules', pkg);
  return existsSync(own) ? own : path.join(root, 'node_modules', pkg);
}

function version(pkg: string): string {
  try {
    const manifest = JSON.parse(
      readFileSync(path.join(packageRoot(pkg), 'package.json'), 'utf8'),
    ) as { version?: string };
    return manifest.version ?? '?';
  } catch {
    return 'not installed';
  }
}

function machine(): Record<string, unknown> {
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverageAtStart: loadavg().map((n) => Math.round(n * 100) / 100),
    packages: Object.fromEntries(
      [
        '@modelcontextprotocol/sdk',
        '@modelcontextprotocol/server-everything',
        '@langchain/mcp-adapters',
        '@langchain/core',
        '@mastra/mcp',
        'zod',
      ].map((pkg) => [pkg, version(pkg)]),
    ),
  };
}

/** Runs one comparison in a child process; resolves with its result or why it failed. */
function runChild(
  name: string,
  timeoutMs: number,
  outDir: string,
): Promise<ComparisonResult | Failure> {
  const out = path.join(outDir, `${name}.json`);
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', path.join(here, 'child.ts'), name, out],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      // Its servers see their stdin close and exit with it.
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ name, reason: `could not start: ${error.message}` });
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) {
        try {
          resolve(JSON.parse(readFileSync(out, 'utf8')) as ComparisonResult);
          return;
        } catch (error) {
          resolve({ name, reason: `no result file: ${String(error)}` });
          return;
        }
      }
      const why = signal === 'SIGKILL' ? `timed out after ${timeoutMs} ms` : `exit ${code}`;
      resolve({ name, reason: `${why}\n${output.trim()}` });
    });
  });
}

function times(value: number | undefined): string {
  return value === undefined ? '' : `${value.toFixed(2)}×`;
}

function formatMedian(row: ResultRow): string {
  if (row.median === null) return '—';
  const digits = Math.abs(row.median) >= 100 ? 1 : Math.abs(row.median) >= 1 ? 3 : 4;
  return `${row.median.toFixed(digits)} ${row.unit}`;
}

/** One Markdown table per comparison. */
export function formatTable(rows: readonly ResultRow[]): string {
  const lines = [
    '| contender | median | ratio | range | CPU ratio | goal | met | note |',
    '|---|---:|---:|---:|---:|---|---|---|',
  ];
  for (const row of rows) {
    const range =
      row.ratioRange === undefined ? '' : `${times(row.ratioRange[0])}–${times(row.ratioRange[1])}`;
    const met = row.met === undefined ? '' : row.met ? 'yes' : '**no**';
    const note = (row.note ?? '').replace(/\|/g, '\\|');
    lines.push(
      `| ${row.contender} | ${formatMedian(row)} | ${times(row.ratio)} | ${range} | ${times(row.cpuRatio)} | ${row.goal ?? ''} | ${met} | ${note} |`,
    );
  }
  const baselines = [...new Set(rows.flatMap((row) => row.baseline ?? []))];
  if (baselines.length > 0) {
    const against = baselines.map((baseline) => {
      const of = rows.filter((row) => row.baseline === baseline).map((row) => row.contender);
      return baselines.length === 1 ? `«${baseline}»` : `«${baseline}» (${of.join('; ')})`;
    });
    lines.push('', `Ratios: median of the per-round ratios to ${against.join(', and to ')}.`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !PLAN.some((step) => step.name === name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown comparison ${unknown.join(', ')}; expected some of ${PLAN.map((s) => s.name).join(', ')}`,
    );
  }
  const plan = wanted.length === 0 ? PLAN : PLAN.filter((step) => wanted.includes(step.name));
  const info = machine();
  console.log(
    `mcp-sections benchmarks — ${String(info.cpus)} CPUs (${String(info.cpuModel)}), Node ${process.version}, load ${JSON.stringify(info.loadAverageAtStart)}\n`,
  );
  const before = new Set(childPids());
  const outDir = mkdtempSync(path.join(tmpdir(), 'mcp-sections-bench-'));
  const started = performance.now();
  const results: ComparisonResult[] = [];
  const failures: Failure[] = [];
  try {
    for (const step of plan) {
      process.stdout.write(`## ${step.name} … `);
      const result = await runChild(step.name, step.timeoutMs, outDir);
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
  const judged = results.flatMap((r) => r.rows).filter((row) => row.met !== undefined);
  console.log('## Goals\n');
  for (const row of judged) {
    console.log(
      `- ${row.met === true ? 'met    ' : 'MISSED '} ${row.comparison} — ${row.contender}: ${times(row.ratio) || formatMedian(row)} (goal ${row.goal ?? ''})`,
    );
  }
  for (const failure of failures) console.log(`- FAILED  ${failure.name}`);
  const left = await leftovers(before);
  console.log(
    `\n${results.length}/${plan.length} comparisons in ${seconds.toFixed(0)} s; processes left behind: ${left.length === 0 ? 'none' : left.join(', ')}`,
  );
  if (wanted.length === 0 && failures.length === 0) {
    const file = path.join(here, 'results.json');
    writeFileSync(
      file,
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          seconds: Math.round(seconds),
          machine: { ...info, loadAverageAtEnd: loadavg().map((n) => Math.round(n * 100) / 100) },
          comparisons: results,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`wrote ${path.relative(root, file)}`);
  }
  if (failures.length > 0 || left.length > 0) process.exitCode = 1;
}

await main();
