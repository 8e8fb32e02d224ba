import { editDistance } from '../core/edit-distance.js';
/**
 * "Did you mean" for names typed on the command line: the closest
 * candidates by edit distance, and lists printed one name per line.
 */

/**
 * The candidates closest to `typed` (case-insensitive edit distance of at
 * most a third of its length, and at least 2, to the whole name or to the
 * part after a `server.`/`server__`/`prefix_` head), best first, at most `limit`.
 *
 * @example
 * closestNames('gret', ['greet', 'ping']); // ['greet']
 */
export function closestNames(typed: string, candidates: readonly string[], limit = 3): string[] {
  const wanted = typed.toLowerCase();
  const budget = Math.max(2, Math.floor(wanted.length / 3));
  return [...new Set(candidates)]
    .map((name) => {
      const lower = name.toLowerCase();
      // `ping` is close to `srv_ping`: the tool's own part counts as well.
      const own = lower.replace(/^[^._]+(\.|__|_)/, '');
      return { name, distance: Math.min(editDistance(wanted, lower), editDistance(wanted, own)) };
    })
    .filter(({ name, distance }) => {
      const lower = name.toLowerCase();
      return distance <= budget || (wanted.length >= 3 && lower.includes(wanted));
    })
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map(({ name }) => name);
}

/**
 * Detail lines for a name that matched nothing: `did you mean a?` (when
 * something is close), then `heading:` and each candidate on its own line.
 */
export function candidateLines(
  typed: string,
  candidates: readonly string[],
  heading: string,
): string[] {
  const close = closestNames(typed, candidates);
  const lines: string[] = [];
  if (close.length > 0) lines.push(`did you mean ${close.join(' or ')}?`);
  lines.push(`${heading}:`);
  if (candidates.length === 0) lines.push('  (none)');
  for (const name of candidates) lines.push(`  ${name}`);
  return lines;
}
