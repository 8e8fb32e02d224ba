/**
 * The pattern check of a call's arguments: every string of the value that
 * a pattern of the schema applies to is matched with RE2 (linear time), as
 * `planPatterns` (patterns.ts) linked the schema's patterns to where they
 * apply.
 */
import type { LinearMatcher } from './linear-pattern.js';
import { isJsonRecord } from '../../core/json.js';
import { describeValue, subjectOf, type ArgumentProblem } from './issues.js';

/**
 * A schema object as the pattern check reads it: its own pattern, and the
 * schemas that also apply to the same value or to its members.
 */
export interface PatternNode {
  /** The schema's `pattern` as sent, and its RE2 program. */
  own: { readonly pattern: string; readonly re2: LinearMatcher } | undefined;
  /** Schemas for the value's members, by property name (`properties`). */
  readonly properties: Map<string, PatternNode>;
  /** The schema for every other property (`additionalProperties`), and the names `properties` declares. */
  others: { schema: PatternNode; readonly declared: ReadonlySet<string> } | undefined;
  /** Schemas for the first items of an array value, by index (`prefixItems`, or `items` as a list). */
  readonly tuple: (PatternNode | undefined)[];
  /** The schema for every item after those (`items` as one schema, or `additionalItems`). */
  items: PatternNode | undefined;
  /** The schema every property name of an object value must keep (`propertyNames`). */
  names: PatternNode | undefined;
  /** Schemas that apply to the same value (`allOf`, `$ref`). */
  also: PatternNode[];
  /** The one branch of an `anyOf`/`oneOf` that admits strings: it applies to a string value. */
  ifString: PatternNode[];
}

/**
 * A problem for every string of `value` that a pattern applying to it does
 * not match (anywhere in it), with its path; `root` is a plan's.
 */
export function patternProblems(root: PatternNode | undefined, value: unknown): ArgumentProblem[] {
  const problems: ArgumentProblem[] = [];
  if (root === undefined) return problems;
  /** The schemas that apply to a value reached through `starts`. */
  const applying = (starts: Iterable<PatternNode>, isString: boolean): Set<PatternNode> => {
    const found = new Set<PatternNode>();
    const stack = [...starts];
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      if (found.has(next)) continue;
      found.add(next);
      stack.push(...next.also);
      if (isString) stack.push(...next.ifString);
    }
    return found;
  };
  /** Problems of a string under `schemas`; `name` when it is a property name. */
  const checkString = (
    schemas: Iterable<PatternNode>,
    text: string,
    path: (string | number)[],
    name: boolean,
  ): void => {
    for (const { own } of applying(schemas, true)) {
      if (own === undefined || own.re2.matcher(text).find()) continue;
      const must = `must match /${own.pattern}/u; received ${describeValue(text)}`;
      const message = `${subjectOf(path)} ${name ? `is not an allowed property name: ${must}` : must}`;
      problems.push({ path, keyword: name ? 'propertyNames' : 'pattern', message });
    }
  };
  const visit = (starts: Iterable<PatternNode>, node: unknown, path: (string | number)[]): void => {
    if (typeof node === 'string') return checkString(starts, node, path, false);
    const schemas = applying(starts, false);
    if (Array.isArray(node)) {
      node.forEach((item, i) => {
        const children = [...schemas].flatMap((schema) =>
          i < schema.tuple.length ? (schema.tuple[i] ?? []) : (schema.items ?? []),
        );
        if (children.length > 0) visit(children, item, [...path, i]);
      });
    } else if (isJsonRecord(node)) {
      const names = [...schemas].flatMap((schema) => schema.names ?? []);
      if (names.length > 0)
        for (const key of Object.keys(node)) checkString(names, key, [...path, key], true);
      const members = new Map<string, PatternNode[]>();
      const add = (name: string, child: PatternNode): void => {
        members.set(name, [...(members.get(name) ?? []), child]);
      };
      for (const schema of schemas) {
        for (const [name, child] of schema.properties)
          if (Object.hasOwn(node, name)) add(name, child);
        const others = schema.others;
        if (others === undefined) continue;
        for (const name of Object.keys(node))
          if (!others.declared.has(name)) add(name, others.schema);
      }
      for (const [name, children] of members) visit(children, node[name], [...path, name]);
    }
  };
  visit([root], value, []);
  return problems;
}
