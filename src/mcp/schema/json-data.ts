/**
 * Arguments are checked as JSON and sent as JSON: a value JSON cannot
 * carry would pass the check as one thing and reach the server as another
 * (`NaN` checked as a number arrives as `null`, a `Date` checked as an
 * object arrives as a string, a member set to `undefined` counted present
 * for `required` arrives missing). Only code that calls a tool directly can
 * pass one; a model's arguments are parsed JSON.
 */
import { type ArgumentPath, subjectOf } from './issues.js';

/** Why arguments cannot be sent as checked: where, and a sentence that says so. */
export interface NotJsonData {
  readonly path: ArgumentPath;
  readonly message: string;
}

/**
 * `value` as the server will receive it, to be checked: itself, or a copy
 * without its members set to `undefined` (JSON leaves them out, so a call
 * may pass an optional argument as `undefined`); or where it holds what
 * JSON cannot carry (`NaN`, `Infinity`, an object of a class, a bigint, a
 * function, a hole or `undefined` in an array).
 */
export function asSent(value: unknown): { readonly value: unknown } | NotJsonData {
  // Every call passes here: the common arguments, plain JSON, allocate nothing.
  const kind = dataKind(value, 0);
  if (kind === PLAIN) return { value };
  if (kind === WITH_UNDEFINED_MEMBERS)
    return { value: JSON.parse(JSON.stringify(value)) as unknown };
  return whereNotData(value);
}

/** JSON data throughout. */
const PLAIN = 0;
/** JSON data but for members set to `undefined`. */
const WITH_UNDEFINED_MEMBERS = 1;
/** Something JSON cannot carry, or nested too deep to look at without a stack of our own. */
const OTHER = 2;

/** Which of the three `value` is, without building anything; past a depth of 64, {@link OTHER}. */
function dataKind(value: unknown, depth: number): number {
  if (typeof value !== 'object' || value === null)
    return unsendable(value) === undefined ? PLAIN : OTHER;
  if (depth > 64 || unsendable(value) !== undefined) return OTHER;
  let kind = PLAIN;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      if (!(index in value)) return OTHER;
      const item: unknown = value[index];
      const inner = item === undefined ? OTHER : dataKind(item, depth + 1);
      if (inner === OTHER) return OTHER;
      if (inner === WITH_UNDEFINED_MEMBERS) kind = inner;
    }
    return kind;
  }
  for (const key of Object.keys(value)) {
    const member: unknown = (value as Record<string, unknown>)[key];
    if (member === undefined) kind = WITH_UNDEFINED_MEMBERS;
    else {
      const inner = dataKind(member, depth + 1);
      if (inner === OTHER) return OTHER;
      if (inner === WITH_UNDEFINED_MEMBERS) kind = inner;
    }
  }
  return kind;
}

/** Where `value` holds what JSON cannot carry (found by {@link dataKind}), or the value as sent. */
function whereNotData(value: unknown): { readonly value: unknown } | NotJsonData {
  let undefinedMembers = false;
  const pending: [unknown, ArgumentPath][] = [[value, []]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, path] = next;
    const what = unsendable(node);
    if (what !== undefined) return refusal(path, what);
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        if (!(index in node)) return refusal([...path, index], 'a hole in an array');
        pending.push([node[index], [...path, index]]);
      }
      continue;
    }
    for (const key of Object.keys(node)) {
      const member: unknown = (node as Record<string, unknown>)[key];
      if (member === undefined) undefinedMembers = true;
      else pending.push([member, [...path, key]]);
    }
  }
  // Only JSON data and undefined members are left: JSON's own copy drops those.
  return { value: undefinedMembers ? (JSON.parse(JSON.stringify(value)) as unknown) : value };
}

function refusal(path: ArgumentPath, what: string): NotJsonData {
  return {
    path,
    message: `${subjectOf(path)} is ${what}, which JSON cannot carry: the server would not receive it as checked`,
  };
}

/** What `value` is when JSON cannot carry it; undefined when it can (its members aside). */
function unsendable(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : String(value);
    case 'object': {
      if (value === null || Array.isArray(value)) return undefined;
      const prototype: unknown = Object.getPrototypeOf(value);
      if (prototype === Object.prototype || prototype === null) return undefined;
      const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
      return typeof name === 'string' && name.length > 0
        ? `a ${name} object`
        : 'an object of a class';
    }
    default:
      return value === undefined ? 'undefined' : `a ${typeof value}`;
  }
}
