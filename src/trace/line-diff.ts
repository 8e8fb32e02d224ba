/** A line diff between two texts, for the viewer's "changed since the last render". */

/** Lines past which the middle of a diff is not aligned (shown as removed, then added). */
const MAX_ALIGNED_CELLS = 4_000_000;

/**
 * One line of a diff: `' '` kept, `'-'` only in the old text, `'+'` only in
 * the new one, followed by the line.
 */
export type DiffLine = `${' ' | '-' | '+'}${string}`;

/**
 * The lines of `before` and `after` as a unified sequence, from the longest
 * common subsequence of lines (common head and tail first, so a small
 * change in a long prompt is cheap).
 */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail += 1;
  }
  const kept = (line: string): DiffLine => ` ${line}`;
  // concat, not push(...): a spread of a long prompt's lines overflows the stack.
  return a
    .slice(0, head)
    .map(kept)
    .concat(
      middle(a.slice(head, a.length - tail), b.slice(head, b.length - tail)),
      a.slice(a.length - tail).map(kept),
    );
}

function middle(a: readonly string[], b: readonly string[]): DiffLine[] {
  if (a.length * b.length > MAX_ALIGNED_CELLS) {
    return [...a.map((line): DiffLine => `-${line}`), ...b.map((line): DiffLine => `+${line}`)];
  }
  // lengths[i][j]: longest common subsequence of a[i..] and b[j..].
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lengths[i * width + j] =
        a[i] === b[j]
          ? lengths[(i + 1) * width + j + 1]! + 1
          : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push(` ${a[i]!}`);
      i += 1;
      j += 1;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) {
      out.push(`-${a[i]!}`);
      i += 1;
    } else {
      out.push(`+${b[j]!}`);
      j += 1;
    }
  }
  for (; i < a.length; i += 1) out.push(`-${a[i]!}`);
  for (; j < b.length; j += 1) out.push(`+${b[j]!}`);
  return out;
}
