/**
 * The order of the contenders in each round. Rotating one fixed order puts
 * every contender first equally often, but always behind the same
 * neighbour: a call that follows a contender that leaves the caches cold
 * (a large peer) is always slower, and one that follows the raw client
 * finds the SDK's code warm. A Williams design (the crossover-trial answer
 * to carry-over) varies that too: over its rows, every contender is first
 * equally often and, within a round, follows every other contender equally
 * often. (The step from one round's last call to the next round's first
 * is not balanced: one call in `n`.)
 */

/**
 * The order of round `round` for `n` contenders: row `round` of a Williams
 * design of `n` rows (even `n`) or `2n` rows (odd `n`, the second half
 * reversed), as contender indices.
 */
export function roundOrder(n: number, round: number): number[] {
  const rows = n % 2 === 0 ? n : 2 * n;
  const row = ((round % rows) + rows) % rows;
  const shift = row % n;
  // First row: 0, n-1, 1, n-2, 2, … — each difference between neighbours occurs once.
  const order = Array.from(
    { length: n },
    (_, j) => ((j % 2 === 0 ? j / 2 : n - (j + 1) / 2) + shift) % n,
  );
  return row < n ? order : order.reverse();
}
