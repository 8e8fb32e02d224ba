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
 * function, a hole or `undefined` in an array, an object that holds
 * itself, nesting deeper than {@link MAX_ARGUMENT_DEPTH}). Work linear in
 * the arguments; an object met twice (shared) is looked at once.
 */
export function asSent(value: unknown): { readonly value: unknown } | NotJsonData {
  // Every call passes here: the common arguments, plain JSON, allocate nothing.
  const outerBudget = budget;
  budget = MAX_QUICK_NODES;
  let kind: number;
  try {
    kind = dataKind(value, 0);
  } finally {
    budget = outerBudget;
  }
  if (kind === PLAIN) return { value };
  return whereNotData(value);
}

/** JSON data throughout. */
const PLAIN = 0;
/** JSON data but for members set to `undefined`. */
const WITH_UNDEFINED_MEMBERS = 1;
/** Something JSON cannot carry, or too deep or too large for the quick look. */
const OTHER = 2;

/** The quick look's bounds: past them, the walk with a stack of its own decides. */
const MAX_QUICK_DEPTH = 64;
const MAX_QUICK_NODES = 10_000;
/** Nodes the quick look in progress may still visit. */
let budget = 0;

/** Which of the three `value` is, without building anything. */
function dataKind(value: unknown, depth: number): number {
  if (typeof value !== 'object' || value === null) {
    return unsendable(value) === undefined ? PLAIN : OTHER;
  }
  if (depth > MAX_QUICK_DEPTH || --budget < 0 || unsendable(value) !== undefined) return OTHER;
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
    const inner = member === undefined ? WITH_UNDEFINED_MEMBERS : dataKind(member, depth + 1);
    if (inner === OTHER) return OTHER;
    if (inner === WITH_UNDEFINED_MEMBERS) kind = inner;
  }
  return kind;
}

/**
 * Deepest nesting of arguments sent: deeper, `JSON.stringify` (the SDK's,
 * as it sends them) and the validator run out of stack, and the failure
 * was blamed on the server.
 */
export const MAX_ARGUMENT_DEPTH = 1_000;

/** A node of the walk, linked to its parent: a path is written out only for a refusal. */
interface Step {
  readonly node: unknown;
  readonly parent: Step | undefined;
  readonly key: string | number | undefined;
  readonly depth: number;
}

/** True when `node` is one of the objects `step` lies in (a cycle, not a shared object). */
function holdsItself(step: Step, node: object): boolean {
  for (let at = step.parent; at !== undefined; at = at.parent) if (at.node === node) return true;
  return false;
}

/** Where `value` holds what JSON cannot carry, or the value as sent; linear in its nodes. */
function whereNotData(value: unknown): { readonly value: unknown } | NotJsonData {
  let undefinedMembers = false;
  const seen = new Set<object>();
  const pending: Step[] = [{ node: value, parent: undefined, key: undefined, depth: 0 }];
  for (let step = pending.pop(); step !== undefined; step = pending.pop()) {
    const { node } = step;
    const what = unsendable(node);
    if (what !== undefined) return refusal(step, what);
    if (typeof node !== 'object' || node === null) continue;
    if (seen.has(node)) {
      if (holdsItself(step, node)) return refusal(step, 'an object that holds itself (a cycle)');
      continue;
    }
    if (step.depth >= MAX_ARGUMENT_DEPTH) {
      return refusal(step, `nested deeper than ${String(MAX_ARGUMENT_DEPTH)} levels`);
    }
    seen.add(node);
    const depth = step.depth + 1;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        const child: Step = { node: node[index] as unknown, parent: step, key: index, depth };
        if (!(index in node)) return refusal(child, 'a hole in an array');
        pending.push(child);
      }
      continue;
    }
    for (const key of Object.keys(node)) {
      const member: unknown = (node as Record<string, unknown>)[key];
      if (member === undefined) undefinedMembers = true;
      else pending.push({ node: member, parent: step, key, depth });
    }
  }
  if (!undefinedMembers) return { value };
  // Only JSON data and undefined members are left: JSON's own copy drops those.
  try {
    return { value: JSON.parse(JSON.stringify(value)) as unknown };
  } catch {
    return { value };
  }
}

function refusal(step: Step, what: string): NotJsonData {
  const path: (string | number)[] = [];
  for (let at: Step | undefined = step; at?.key !== undefined; at = at.parent) path.push(at.key);
  path.reverse();
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
