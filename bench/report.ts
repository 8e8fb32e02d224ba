/**
 * How the runner prints rows: one Markdown table per comparison, then the
 * goals, met or missed. The same rows go to `bench/results.json`.
 */
import type { ResultRow } from './stats.js';

function times(value: number | undefined): string {
  return value === undefined ? '' : `${value.toFixed(2)}×`;
}

/** A row's figure with its unit, to a sensible number of digits. */
export function formatValue(row: ResultRow): string {
  if (row.value === null) return '—';
  const abs = Math.abs(row.value);
  const digits = Number.isInteger(row.value) ? 0 : abs >= 100 ? 1 : abs >= 1 ? 2 : 4;
  return `${row.value.toFixed(digits)} ${row.unit}`;
}

function spread(row: ResultRow): string {
  if (row.ratioRange === undefined) return '';
  const [low, high] = row.ratioRange;
  // Ratios print as ×; spreads of other figures (µs, bytes) as plain numbers.
  return row.unit.includes('added') || row.unit.includes('more than')
    ? `${low}–${high}`
    : `${times(low)}–${times(high)}`;
}

/** One Markdown table for the rows of one comparison run. */
export function formatTable(rows: readonly ResultRow[]): string {
  const lines = [
    '| comparison | contender | value | ratio | spread | goal | met | note |',
    '|---|---|---:|---:|---:|---|---|---|',
  ];
  for (const row of rows) {
    const met = row.met === undefined ? '' : row.met ? 'yes' : '**no**';
    const note = (row.note ?? '').replace(/\|/g, '\\|');
    lines.push(
      `| ${row.comparison} | ${row.contender} | ${formatValue(row)} | ${times(row.ratio)} | ${spread(row)} | ${row.goal ?? ''} | ${met} | ${note} |`,
    );
  }
  const statistics = [...new Set(rows.flatMap((row) => row.statistic ?? []))];
  const baselines = [...new Set(rows.flatMap((row) => row.baseline ?? []))];
  if (statistics.length > 0) lines.push('', `value: ${statistics.join('; ')}.`);
  if (baselines.length > 0)
    lines.push(`ratio against: ${baselines.map((b) => `«${b}»`).join(', ')}.`);
  return lines.join('\n');
}

/** One line per judged row: met or MISSED, the figure and the goal. */
export function formatGoals(rows: readonly ResultRow[]): string[] {
  return rows
    .filter((row) => row.met !== undefined)
    .map((row) => {
      const figure =
        row.unit.startsWith('ms/call') ||
        row.unit.startsWith('µs/call') ||
        row.unit === 'ms/connect'
          ? `${times(row.ratio)} (${formatValue(row)})`
          : formatValue(row);
      return `- ${row.met === true ? 'met   ' : 'MISSED'} ${row.comparison} — ${row.contender}: ${figure}; goal ${row.goal ?? ''}`;
    });
}
