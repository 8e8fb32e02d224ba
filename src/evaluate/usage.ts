/** Token counts summed over an evaluation's turns. */
import type { TokenUsage } from '../runtime/events.js';
import type { TurnUsage } from './adapter.js';

/** No tokens yet. */
export const NO_USAGE: TokenUsage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
});

/**
 * `total` plus one turn's counts. A count the provider did not report (or
 * reported as something other than a finite, non-negative number) adds 0;
 * a missing `totalTokens` is input plus output.
 */
export function addUsage(total: TokenUsage, turn: TurnUsage | undefined): TokenUsage {
  if (turn === undefined) return total;
  const input = count(turn.inputTokens);
  const output = count(turn.outputTokens);
  const sum = turn.totalTokens === undefined ? input + output : count(turn.totalTokens);
  return Object.freeze({
    inputTokens: total.inputTokens + input,
    outputTokens: total.outputTokens + output,
    totalTokens: total.totalTokens + sum,
  });
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}
