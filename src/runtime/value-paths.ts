/**
 * Reading and setting values in a slice's immutable value by a path of
 * object keys, as the call journal's undo needs: the new value shares
 * everything off the path, and puts values in as they are (never copies:
 * other undo steps find elements by identity).
 */
import type { Patch } from 'immer';
import { isJsonRecord } from '../core/json.js';

/** A path of keys (array indices as numbers). */
export type Path = readonly (string | number)[];

/** Each symbol met in a path, by its place in a path key (symbols cannot be written as text). */
const symbolIds = new Map<symbol, number>();

/**
 * A text that tells `path` from every other path: its keys (an index as a
 * number or as text alike, as a path names it either way), a symbol among
 * them (a slice's own symbol-keyed member) told by its identity.
 */
export function pathKey(path: readonly PropertyKey[]): string {
  let key = '';
  for (const part of path) {
    if (typeof part === 'symbol') {
      let id = symbolIds.get(part);
      if (id === undefined) symbolIds.set(part, (id = symbolIds.size));
      key += `y${id},`;
    } else key += JSON.stringify(String(part)); // quoted and escaped: no key runs into the next
  }
  return key;
}

/** What a setter returns when something on the path is not an object (an array counts as not one). */
export const GONE: unique symbol = Symbol('gone');

/** The value at `path` in `root`, through objects only; undefined when there is none. */
export function valueAt(root: unknown, path: Path): unknown {
  let node = root;
  for (const key of path) {
    if (!isJsonRecord(node) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

/**
 * `root` with `value` at `path` (through objects only), as a new frozen
 * value; the objects on the path are copied, each with its prototype.
 * {@link GONE} when something on the path is not an object.
 */
export function withValueAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  if (!isJsonRecord(root)) return GONE;
  const [key, ...rest] = path as [string | number, ...Path];
  const inner = withValueAt((root as Record<string | number, unknown>)[key], rest, value);
  if (inner === GONE) return GONE;
  const copy = shallowCopy(root);
  setMember(copy, key, inner);
  return Object.freeze(copy);
}

/** `root` with an undo patch made on an object key applied; {@link GONE} when its place is no longer there. */
export function withPatch(root: unknown, patch: Patch): unknown {
  if (patch.op !== 'remove') return withValueAt(root, patch.path, patch.value);
  const parentPath = patch.path.slice(0, -1);
  const parent = valueAt(root, parentPath);
  if (!isJsonRecord(parent)) return GONE;
  const copy = shallowCopy(parent);
  delete copy[patch.path[patch.path.length - 1]!];
  return withValueAt(root, parentPath, Object.freeze(copy));
}

/**
 * The path of the outermost array that `path` reaches into in `root` (a
 * prefix of `path` made of object keys), or undefined when it reaches
 * into none. An array that is the very value at `path` does not count: a
 * patch there sets the array whole, under an object's key.
 */
export function outermostArrayPath(root: unknown, path: Path): Path | undefined {
  let node = root;
  for (let depth = 0; depth < path.length; depth += 1) {
    if (Array.isArray(node)) return path.slice(0, depth);
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[path[depth]!];
  }
  return undefined;
}

/**
 * A copy of an object's own enumerable members, with its prototype. Each
 * member is defined, not assigned: an own `__proto__` member (as
 * `JSON.parse` makes one) stays a member, and does not become the copy's
 * prototype.
 */
export function shallowCopy(object: object): Record<string | number, unknown> {
  const prototype = Object.getPrototypeOf(object) as object | null;
  const copy = Object.create(prototype) as Record<PropertyKey, unknown>;
  // Symbol-keyed members too: a slice's own, which a copy must not drop.
  for (const key of Reflect.ownKeys(object)) {
    if (Object.prototype.propertyIsEnumerable.call(object, key)) {
      setMember(copy, key, (object as Record<PropertyKey, unknown>)[key]);
    }
  }
  return copy;
}

/** Sets `object[key]` as an own, writable, enumerable member, whatever the key (`__proto__` too). */
export function setMember(object: object, key: PropertyKey, value: unknown): void {
  Object.defineProperty(object, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}
