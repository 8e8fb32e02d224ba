/**
 * `record[key]` when `key` is the record's own property, else undefined.
 * Config maps are keyed by names that servers choose: a tool named
 * `constructor` or `toString` must not pick up `Object.prototype`'s member.
 */
export function ownValue<T>(
  record: Readonly<Record<string, T>> | undefined,
  key: string,
): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}
