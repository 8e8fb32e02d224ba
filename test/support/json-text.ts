/** What tests need to know of a JSON value's text without the code under test. */

/** What JSON.stringify adds for escapes inside the strings of `value` (keys included). */
export function escapeChars(value: unknown): number {
  if (typeof value === 'string') return JSON.stringify(value).length - value.length - 2;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + escapeChars(item), 0);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).reduce(
      (sum, [key, item]) => sum + escapeChars(key) + escapeChars(item),
      0,
    );
  }
  return 0;
}

/** The objects and arrays in `value`, itself included. */
export function containersIn(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const members: unknown[] = Array.isArray(value) ? value : Object.values(value);
  return 1 + members.reduce((sum: number, member) => sum + containersIn(member), 0);
}

/**
 * A sparse array of `length` holes that counts how many of its items are
 * read (its length aside): what an in-process server's getter may hand a
 * reader that walks it item by item.
 */
export function countedHoles(length = 2 ** 32 - 1): { holes: unknown[]; reads: () => number } {
  let reads = 0;
  const holes = new Proxy(new Array<unknown>(length), {
    get: (target, key, receiver) => {
      if (key !== 'length') reads++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { holes, reads: () => reads };
}
