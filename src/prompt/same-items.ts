/**
 * True when `a` and `b` hold the same items (`===`) in the same order: how
 * render caches tell that what they were built from has not changed.
 */
export function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index += 1) {
    if (a[index] !== b[index]) return false;
  }
  return true;
}
