/**
 * Problems from @cfworker/json-schema's flat list of output units, read as
 * a tree by keyword location: a summary ("Property "a" does not match")
 * gives way to its details, a failed `anyOf`/`oneOf` becomes one sentence.
 */
import type { OutputUnit } from '@cfworker/json-schema';
import {
  alternativesFinding,
  leafPredicate,
  subjectOf,
  typeFinding,
  type ArgumentPath,
  type ArgumentProblem,
  type Finding,
} from './issues.js';
import { decodePointer, isJsonRecord, memberOf, type JsonData } from '../../core/json.js';

/** Finds the schema value at a validator `keywordLocation`, following `$ref`. */
export type SchemaLocator = (keywordLocation: string) => JsonData | undefined;

/** Keywords whose error only says a subschema failed; the subschema's own errors follow. */
const CONTAINERS = new Set(
  `properties patternProperties additionalProperties unevaluatedProperties items prefixItems
  additionalItems unevaluatedItems $ref $recursiveRef allOf dependentSchemas if`.split(/\s+/),
);

/** Keywords that name missing properties: one unit per name, each naming them all. */
const MISSING = new Set(['required', 'dependentRequired', 'dependencies']);

/** A unit with the units that explain it. */
interface UnitNode {
  readonly unit: OutputUnit;
  readonly details: UnitNode[];
  /** For `false` schemas: the keyword of the error this one explains. */
  readonly parentKeyword?: string;
}

/** Everything wrong with `instance`, from the validator's units; one problem per path and keyword. */
export function problemsFromOutputUnits(
  units: readonly OutputUnit[],
  instance: unknown,
  locate: SchemaLocator,
): ArgumentProblem[] {
  const roots: UnitNode[] = [];
  const open: UnitNode[] = [];
  for (const unit of units) {
    const previous = open[open.length - 1];
    // A `false` schema's unit carries the *instance* location as its keyword location, and
    // always directly follows the unit it explains.
    const node: UnitNode =
      unit.keyword === 'false' && previous !== undefined
        ? {
            unit: { ...unit, keywordLocation: `${previous.unit.keywordLocation}/false` },
            details: [],
            parentKeyword: previous.unit.keyword,
          }
        : { unit, details: [] };
    while (
      open.length > 0 &&
      !node.unit.keywordLocation.startsWith(`${open[open.length - 1]?.unit.keywordLocation}/`)
    ) {
      open.pop();
    }
    (open[open.length - 1]?.details ?? roots).push(node);
    open.push(node);
  }
  const seen = new Set<string>();
  const problems: ArgumentProblem[] = [];
  for (const { path, keyword, predicate } of new Reader(instance, locate).findings(roots)) {
    const key = `${keyword} ${JSON.stringify(path)}`;
    if (seen.has(key)) continue; // a tuple's length twice, a summary restating its details
    seen.add(key);
    problems.push({ path, keyword, message: `${subjectOf(path)} ${predicate}` });
  }
  return problems;
}

class Reader {
  constructor(
    private readonly instance: unknown,
    private readonly locate: SchemaLocator,
  ) {}

  /** The findings of sibling units; `names` when they judge property names, not values. */
  findings(nodes: readonly UnitNode[], names = false): Finding[] {
    return nodes.flatMap((node) => this.finding(node, names));
  }

  private finding(node: UnitNode, names: boolean): Finding[] {
    const { unit, details } = node;
    const { keyword, error } = unit;
    const path = this.pathOf(unit.instanceLocation);
    // Inside `propertyNames`, errors are located at the property and judge its name.
    const value = names ? path[path.length - 1] : path.reduce(memberOf, this.instance as JsonData);
    const one = (predicate: string): Finding[] => [{ path, keyword, predicate }];
    if (keyword === 'anyOf' || keyword === 'oneOf') {
      const matches = /\((\d+) matches\)/.exec(error)?.[1];
      if (matches !== undefined && Number(matches) > 1) {
        return one(`must match exactly one alternative, but matches ${matches}`);
      }
      const branches = new Map<string, UnitNode[]>();
      for (const detail of details) {
        const branch =
          detail.unit.keywordLocation.slice(unit.keywordLocation.length + 1).split('/')[0] ?? '';
        branches.set(branch, [...(branches.get(branch) ?? []), detail]);
      }
      const alternatives = [...branches.values()].map((branch) => this.findings(branch, names));
      return [alternativesFinding(path, keyword, value, alternatives)];
    }
    if (keyword === 'propertyNames') {
      const child = this.findings(details, true)[0];
      const predicate = `is not an allowed property name${child ? `: ${child.predicate}` : ''}`;
      return [{ path: child?.path ?? path, keyword, predicate }];
    }
    if (keyword === 'contains') {
      return one('must contain at least one item that matches the "contains" schema');
    }
    if (keyword === 'false') {
      const parent = node.parentKeyword ?? '';
      const what = /Properties$/.test(parent) ? 'property' : /[iI]tems$/.test(parent) ? 'item' : '';
      return one(what === '' ? 'is not allowed here' : `is not an allowed ${what}`);
    }
    // A container's own errors follow (a schema-valued dependency is one too).
    if (CONTAINERS.has(keyword) || details.length > 0) return this.findings(details, names);
    if (keyword === 'type') {
      // The validator's text lists the expected names: `... Expected "a", "b".`
      const listed = /Expected (".*")\.$/.exec(error)?.[1] ?? '';
      const expected = [...listed.matchAll(/"([a-z]+)"/g)].map((match) => match[1] ?? '');
      return [typeFinding(path, expected, value)];
    }
    const location = unit.keywordLocation;
    const parent = this.locate(location.slice(0, Math.max(location.lastIndexOf('/'), 1)));
    const schema = isJsonRecord(parent) ? parent : undefined;
    const own = schema?.[keyword];
    if (MISSING.has(keyword) && own !== undefined && isJsonRecord(value)) {
      const missing = (list: JsonData | undefined, predicate: string): Finding[] =>
        (Array.isArray(list) ? list : [])
          .filter((name): name is string => typeof name === 'string' && !Object.hasOwn(value, name))
          .map((name) => ({ path: [...path, name], keyword, predicate }));
      if (keyword === 'required') return missing(own, 'is required');
      return Object.entries(isJsonRecord(own) ? own : {})
        .filter(([trigger]) => Object.hasOwn(value, trigger))
        .flatMap(([trigger, list]) =>
          missing(list, `is required when ${JSON.stringify(trigger)} is present`),
        );
    }
    return one(leafPredicate(keyword, { own, node: schema, value, error }));
  }

  /** The path of an instance location, with array indexes as numbers. */
  private pathOf(location: string): ArgumentPath {
    const path: (string | number)[] = [];
    let current: unknown = this.instance;
    for (const segment of decodePointer(location)) {
      const index = Array.isArray(current) && /^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : -1;
      path.push(index >= 0 ? index : segment);
      current = memberOf(current, segment);
    }
    return path;
  }
}
