/**
 * Prints the tables of `docs/performance.md` from `bench/results.json`:
 * `npx tsx bench/table.ts`. The doc's figures are pasted from here, so they
 * are always one run's, never edited by hand.
 */
import { readFileSync } from 'node:fs';
import { formatGoals, formatTable } from './report.js';
import type { ComparisonResult } from './stats.js';

interface Results {
  readonly date: string;
  readonly seconds: number;
  readonly machine: Record<string, unknown>;
  readonly comparisons: readonly ComparisonResult[];
}

const results = JSON.parse(
  readFileSync(new URL('./results.json', import.meta.url), 'utf8'),
) as Results;
console.log(
  `From \`bench/results.json\`: run of ${results.date}, ${results.seconds} s, ` +
    `load average ${JSON.stringify(results.machine.loadAverageAtStart)} at the start.\n`,
);
for (const comparison of results.comparisons) {
  console.log(`### ${comparison.name}\n\n${formatTable(comparison.rows)}\n`);
}
const goals = formatGoals(results.comparisons.flatMap((c) => c.rows));
console.log(
  `### Goals: ${goals.filter((g) => g.startsWith('- met')).length} of ${goals.length} met\n`,
);
for (const line of goals) console.log(line);
