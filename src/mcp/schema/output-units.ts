/**
 * Problems from @cfworker/json-schema output units (run with
 * `shortCircuit = false`). The validator reports a flat list in which
 * summary units ("Property "a" does not match schema") precede the units
 * that explain them: summaries are dropped where details follow, and the
 * errors inside a failed `anyOf`/`oneOf` become one sentence.
 */
import type { OutputUnit } from '@cfworker/json-schema';
import {
  alternativesFinding,
  leafPredicate,
  QUOTING_KEYWORDS,
  subjectOf,
  typeFinding,
  type ArgumentPath,
  type ArgumentProblem,
  type Finding,
} from './issues.js';
import { isJsonObject, unescapePointerSegment, type JsonValue } from './json.js';

/** Finds the schema value at a validator `keywordLocation`, following `$ref`. */
export type SchemaLocator = (keywordLocation: string) => JsonValue | undefined;

/** Keywords whose error only says a subschema failed; the subschema's own errors follow. */
const CONTAINERS = new Set(
  `properties patternProperties additionalProperties unevaluatedProperties items prefixItems
  additionalItems unevaluatedItems $ref $recursiveRef allOf dependentSchemas if`.split(/\s+/),
);

/** Keywords that name missing properties, one unit per name. */
const MISSING = new Set(['required', 'dependentRequired', 'dependencies']);

interface Unit extends OutputUnit {
  /** The keyword of the error this one explains, for `false` schemas. */
  readonly parentKeyword?: string;
}

/** Everything wrong with `instance`, from the validator's units; one problem per path and keyword. */
export function problemsFromOutputUnits(
  units: readonly OutputUnit[],
  instance: unknown,
  locate: SchemaLocator,
): ArgumentProblem[] {
  // The validator gives a `false` schema's error the *instance* location as its keyword
  // location; it always directly follows the error it explains, so re-home it there.
  const prepared: Unit[] = [];
  for (const unit of units) {
    const previous = prepared[prepared.length - 1];
    const parent = unit.keyword === 'false' ? previous : undefined;
    prepared.push(
      parent === undefined
        ? unit
        : {
            ...unit,
            keywordLocation: `${parent.keywordLocation}/false`,
            parentKeyword: parent.keyword,
          },
    );
  }
  const seen = new Set<string>();
  const problems: ArgumentProblem[] = [];
  for (const { path, keyword, predicate } of new UnitReader(prepared, instance, locate).read()) {
    const key = `${keyword} ${JSON.stringify(path)}`;
    if (seen.has(key)) continue; // a tuple's length twice, a summary restating its details
    seen.add(key);
    problems.push({ path, keyword, message: `${subjectOf(path)} ${predicate}` });
  }
  return problems;
}

class UnitReader {
  private index = 0;
  private readonly reported = new Set<string>();
  /** Property names standing in for values while `propertyNames` errors are read. */
  private readonly names = new Map<string, string>();

  constructor(
    private readonly units: readonly Unit[],
    private readonly instance: unknown,
    private readonly locate: SchemaLocator,
  ) {}

  /** Reads units while `belongs` holds for the next one. */
  read(belongs: (unit: Unit) => boolean = () => true): Finding[] {
    const findings: Finding[] = [];
    for (let unit = this.next(); unit !== undefined && belongs(unit); unit = this.next()) {
      this.index++;
      const prefix = `${unit.keywordLocation}/`;
      const inside = (next: Unit): boolean => next.keywordLocation.startsWith(prefix);
      const path = this.pathOf(unit.instanceLocation);
      const { keyword } = unit;
      const first = this.next();
      if (keyword === 'anyOf' || keyword === 'oneOf') {
        findings.push(this.alternatives(unit, path));
      } else if (keyword === 'propertyNames') {
        // The inner errors judge the property's *name*, located at the property.
        const name =
          first && inside(first) ? decodeLocation(first.instanceLocation).pop() : undefined;
        if (first !== undefined && name !== undefined) this.names.set(first.instanceLocation, name);
        const child = this.read(inside)[0];
        const detail = child === undefined ? '' : `: ${child.predicate}`;
        const predicate = `is not an allowed property name${detail}`;
        findings.push({ path: child?.path ?? path, keyword, predicate });
      } else if (keyword === 'contains') {
        this.read(inside);
        const predicate = 'must contain at least one item that matches the "contains" schema';
        findings.push({ path, keyword, predicate });
      } else if (keyword === 'false') {
        const parent = unit.parentKeyword ?? '';
        const what = /Properties$/.test(parent)
          ? 'property'
          : /[iI]tems$/.test(parent)
            ? 'item'
            : '';
        const predicate = what === '' ? 'is not allowed here' : `is not an allowed ${what}`;
        findings.push({ path, keyword, predicate });
      } else if (
        !CONTAINERS.has(keyword) &&
        !(keyword === 'dependencies' && first && inside(first))
      ) {
        // (A schema-valued dependency is a container: its own errors follow.)
        findings.push(...this.leafFindings(unit, path));
      }
    }
    return findings;
  }

  private next(): Unit | undefined {
    return this.units[this.index];
  }

  /** One finding for a failed `anyOf`/`oneOf`, from the findings of each failed alternative. */
  private alternatives(unit: Unit, path: ArgumentPath): Finding {
    const matches = /\((\d+) matches\)/.exec(unit.error)?.[1];
    if (matches !== undefined && Number(matches) > 1) {
      const predicate = `must match exactly one alternative, but matches ${matches}`;
      return { path, keyword: 'oneOf', predicate };
    }
    const prefix = `${unit.keywordLocation}/`;
    const branches: Finding[][] = [];
    for (let next = this.next(); next?.keywordLocation.startsWith(prefix); next = this.next()) {
      const branch = `${prefix}${next.keywordLocation.slice(prefix.length).split('/')[0] ?? ''}/`;
      const before = this.index;
      branches.push(this.read((u) => u.keywordLocation.startsWith(branch)));
      // A unit we cannot place must still be consumed, or this loop would not end.
      if (this.index === before) this.index++;
    }
    return alternativesFinding(path, unit.keyword, valueAt(this.instance, path), branches);
  }

  private leafFindings(unit: Unit, path: ArgumentPath): Finding[] {
    const { keyword, error } = unit;
    const value = this.names.get(unit.instanceLocation) ?? valueAt(this.instance, path);
    if (keyword === 'type') {
      // The validator's text lists the expected names: `... Expected "a", "b".`
      const listed = /Expected (".*")\.$/.exec(error)?.[1] ?? '';
      return [
        typeFinding(
          path,
          [...listed.matchAll(/"([a-z]+)"/g)].map((m) => m[1] ?? ''),
          value,
        ),
      ];
    }
    const location = unit.keywordLocation;
    const parent = this.locate(location.slice(0, Math.max(location.lastIndexOf('/'), 1)));
    const node = isJsonObject(parent) ? parent : undefined;
    const own = node?.[keyword];
    if (MISSING.has(keyword) && own !== undefined && isJsonObject(value)) {
      // One unit per missing name; report them all from the first.
      const once = `${keyword} ${unit.instanceLocation} ${location}`;
      if (this.reported.has(once)) return [];
      this.reported.add(once);
      const missing = (names: JsonValue | undefined, predicate: string): Finding[] =>
        (Array.isArray(names) ? names : [])
          .filter((name): name is string => typeof name === 'string' && !Object.hasOwn(value, name))
          .map((name) => ({ path: [...path, name], keyword, predicate }));
      if (keyword === 'required') return missing(own, 'is required');
      return Object.entries(isJsonObject(own) ? own : {})
        .filter(([trigger]) => Object.hasOwn(value, trigger))
        .flatMap(([trigger, names]) =>
          missing(names, `is required when ${JSON.stringify(trigger)} is present`),
        );
    }
    const quotes = QUOTING_KEYWORDS.has(keyword) || MISSING.has(keyword);
    // A quoting keyword whose schema could not be located: the validator's words.
    const leaf = { own: quotes ? own : undefined, node, value, error };
    return [{ path, keyword, predicate: leafPredicate(keyword, leaf) }];
  }

  /** The path of an instance location, with array indexes as numbers. */
  private pathOf(location: string): ArgumentPath {
    const path: (string | number)[] = [];
    let current = this.instance;
    for (const segment of decodeLocation(location)) {
      const index = Array.isArray(current) && /^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : -1;
      path.push(index >= 0 ? index : segment);
      current = valueAt(current, [segment]);
    }
    return path;
  }
}

/** The value at `path` under `root`, or undefined. */
function valueAt(root: unknown, path: ArgumentPath): unknown {
  let current = root;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/** `#/a~1b/0` → `['a/b', '0']`; the validator URI-encodes each segment. */
export function decodeLocation(location: string): string[] {
  const body = location.startsWith('#') ? location.slice(1) : location;
  return body
    .split('/')
    .slice(1)
    .map((segment) => {
      try {
        return unescapePointerSegment(decodeURIComponent(segment));
      } catch {
        return unescapePointerSegment(segment);
      }
    });
}
