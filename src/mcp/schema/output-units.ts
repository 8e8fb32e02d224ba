/**
 * Problems from @cfworker/json-schema output units: the validator reports a
 * flat list in which summary units ("Property "a" does not match schema")
 * precede the units that explain them.
 */
import type { OutputUnit } from '@cfworker/json-schema';
import type { SchemaNode } from './analyze.js';
import {
  alternativesFinding,
  counted,
  describeValue,
  listValues,
  toProblems,
  typeFinding,
  valueAt,
  type ArgumentPath,
  type ArgumentProblem,
  type Finding,
} from './issues.js';
import { isJsonObject, unescapePointerSegment, type JsonObject, type JsonValue } from './json.js';

/** Finds the schema at a validator `keywordLocation`, following `$ref`. */
export type SchemaLocator = (keywordLocation: string) => SchemaNode | JsonValue | undefined;

/** Keywords whose error only says a subschema failed; the subschema's own errors follow. */
const CONTAINERS = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  '$ref',
  '$recursiveRef',
  'allOf',
  'dependentSchemas',
  'if',
]);

/** Keywords that name missing properties, one unit per name. */
const MISSING = new Set(['required', 'dependentRequired', 'dependencies']);

const received = (value: unknown): string => `received ${describeValue(value)}`;
const show = (value: unknown): string => JSON.stringify(value) ?? 'nothing';
const lengthOf = (value: unknown): number => (typeof value === 'string' ? [...value].length : 0);
const sizeOf = (value: unknown): number => (isJsonObject(value) ? Object.keys(value).length : 0);

/** The sentence of each keyword that quotes the schema's value for it (`own`). */
const QUOTING: Readonly<
  Record<string, (own: JsonValue, value: unknown, node: JsonObject | undefined) => string>
> = {
  const: (own, value) => `must be ${listValues([own])}; ${received(value)}`,
  minimum: (own, value, node) =>
    `must be ${node?.['exclusiveMinimum'] === true ? '>' : '>='} ${show(own)}; ${received(value)}`,
  maximum: (own, value, node) =>
    `must be ${node?.['exclusiveMaximum'] === true ? '<' : '<='} ${show(own)}; ${received(value)}`,
  exclusiveMinimum: (own, value) => `must be > ${show(own)}; ${received(value)}`,
  exclusiveMaximum: (own, value) => `must be < ${show(own)}; ${received(value)}`,
  minLength: (own, value) =>
    `must be at least ${counted(own, 'character')} long; ${received(value)} (${lengthOf(value)})`,
  maxLength: (own, value) =>
    `must be at most ${counted(own, 'character')} long; ${received(value)} (${lengthOf(value)})`,
  pattern: (own, value) =>
    `must match /${typeof own === 'string' ? own : show(own)}/u; ${received(value)}`,
  multipleOf: (own, value) => `must be a multiple of ${show(own)}; ${received(value)}`,
  minItems: (own, value) =>
    `must have at least ${counted(own, 'item')}; received ${Array.isArray(value) ? value.length : describeValue(value)}`,
  maxItems: (own, value) =>
    `must have at most ${counted(own, 'item')}; received ${Array.isArray(value) ? value.length : describeValue(value)}`,
  minProperties: (own, value) =>
    `must have at least ${counted(own, 'property')}; received ${sizeOf(value)}`,
  maxProperties: (own, value) =>
    `must have at most ${counted(own, 'property')}; received ${sizeOf(value)}`,
};

interface Unit extends OutputUnit {
  /** The keyword of the error this one explains, for `false` schemas. */
  readonly parentKeyword?: string;
}

/**
 * Problems from @cfworker/json-schema output units (run with
 * `shortCircuit = false`). Summary units are dropped where the units that
 * follow say what is wrong; the errors inside a failed `anyOf`/`oneOf`
 * become one sentence.
 */
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
    prepared.push(
      unit.keyword === 'false' && previous !== undefined
        ? {
            ...unit,
            keywordLocation: `${previous.keywordLocation}/false`,
            parentKeyword: previous.keyword,
          }
        : unit,
    );
  }
  return toProblems(new UnitReader(prepared, instance, locate).read(() => true));
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
  read(belongs: (unit: Unit) => boolean): Finding[] {
    const findings: Finding[] = [];
    for (let unit = this.next(); unit !== undefined && belongs(unit); unit = this.next()) {
      this.index++;
      const inside = (next: Unit): boolean =>
        next.keywordLocation.startsWith(`${unit.keywordLocation}/`);
      const path = this.pathOf(unit.instanceLocation);
      if (unit.keyword === 'anyOf' || unit.keyword === 'oneOf') {
        findings.push(this.alternatives(unit, path));
      } else if (unit.keyword === 'propertyNames') {
        const first = this.next();
        // The inner errors judge the property's *name*, located at the property.
        const name =
          first !== undefined && inside(first)
            ? decodeLocation(first.instanceLocation).pop()
            : undefined;
        if (first !== undefined && name !== undefined) this.names.set(first.instanceLocation, name);
        const child = this.read(inside)[0];
        findings.push({
          path: child?.path ?? path,
          keyword: 'propertyNames',
          predicate: `is not an allowed property name${child === undefined ? '' : `: ${child.predicate}`}`,
        });
      } else if (unit.keyword === 'contains') {
        this.read(inside);
        findings.push({
          path,
          keyword: 'contains',
          predicate: 'must contain at least one item that matches the "contains" schema',
        });
      } else if (
        unit.keyword === 'dependencies' &&
        this.next() !== undefined &&
        inside(this.next()!)
      ) {
        continue; // a schema-valued dependency: its own errors follow
      } else if (!CONTAINERS.has(unit.keyword)) {
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
      return {
        path,
        keyword: 'oneOf',
        predicate: `must match exactly one alternative, but matches ${matches}`,
      };
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
    const { keyword } = unit;
    const value = this.names.get(unit.instanceLocation) ?? valueAt(this.instance, path);
    const finding = (predicate: string, as = keyword): Finding[] => [
      { path, keyword: as, predicate },
    ];
    if (keyword === 'type') {
      // The validator's text lists the expected names: `... Expected "a", "b".`
      const listed = /Expected (".*")\.$/.exec(unit.error)?.[1] ?? '';
      return [
        typeFinding(
          path,
          [...listed.matchAll(/"([a-z]+)"/g)].map((m) => m[1] ?? ''),
          value,
        ),
      ];
    }
    const parent = this.locate(
      unit.keywordLocation.slice(0, Math.max(unit.keywordLocation.lastIndexOf('/'), 1)),
    );
    const node = isJsonObject(parent) ? parent : undefined;
    const own = node?.[keyword];
    const quote = QUOTING[keyword];
    if (own === undefined && (quote !== undefined || MISSING.has(keyword) || keyword === 'enum')) {
      // The schema could not be located (e.g. behind $recursiveRef): use the validator's words.
      return finding(`is invalid: ${unit.error}`);
    }
    if (quote !== undefined && own !== undefined) return finding(quote(own, value, node));
    if (MISSING.has(keyword)) {
      // One unit per missing name; report them all from the first.
      const once = `${keyword} ${unit.instanceLocation} ${unit.keywordLocation}`;
      if (this.reported.has(once)) return [];
      this.reported.add(once);
      return missingFindings(keyword, node, path, value);
    }
    switch (keyword) {
      case 'enum': {
        const values = Array.isArray(own) ? own : [];
        if (values.length === 0) return finding('is not allowed here (the schema lists no value)');
        if (values.length === 1)
          return finding(`must be ${listValues(values)}; ${received(value)}`, 'const');
        return finding(`must be one of ${listValues(values)}; ${received(value)}`);
      }
      case 'false': {
        const parentKeyword = unit.parentKeyword ?? '';
        const what = /Properties$/.test(parentKeyword)
          ? 'property'
          : /[iI]tems$/.test(parentKeyword)
            ? 'item'
            : undefined;
        return finding(what === undefined ? 'is not allowed here' : `is not an allowed ${what}`);
      }
      case 'uniqueItems': {
        const pair = /indexes (\d+) and (\d+)/.exec(unit.error);
        return finding(
          `must not repeat items; item ${pair?.[2] ?? '?'} equals item ${pair?.[1] ?? '?'}`,
        );
      }
      case 'not':
        return finding('must not match the schema under "not"');
      case 'minContains':
      case 'maxContains':
        return finding(`does not hold the right number of matching items: ${unit.error}`);
      default:
        return finding(`is invalid: ${unit.error}`);
    }
  }

  private pathOf(location: string): ArgumentPath {
    const path: (string | number)[] = [];
    let current = this.instance;
    for (const segment of decodeLocation(location)) {
      const index =
        Array.isArray(current) && /^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : undefined;
      path.push(index ?? segment);
      current =
        isJsonObject(current) || Array.isArray(current)
          ? (current as Record<string, unknown>)[segment]
          : undefined;
    }
    return path;
  }
}

/** The names `required`, `dependentRequired` or `dependencies` find missing in `value`. */
function missingFindings(
  keyword: string,
  node: JsonObject | undefined,
  path: ArgumentPath,
  value: unknown,
): Finding[] {
  if (!isJsonObject(value) || node === undefined) return [];
  const missing = (names: JsonValue | undefined, predicate: string): Finding[] =>
    (Array.isArray(names) ? names : [])
      .filter((name): name is string => typeof name === 'string' && !Object.hasOwn(value, name))
      .map((name) => ({ path: [...path, name], keyword, predicate }));
  if (keyword === 'required') return missing(node['required'], 'is required');
  const rules = node[keyword];
  return Object.entries(isJsonObject(rules) ? rules : {})
    .filter(([trigger]) => Object.hasOwn(value, trigger))
    .flatMap(([trigger, needed]) =>
      missing(needed, `is required when ${JSON.stringify(trigger)} is present`),
    );
}

/** `#/a~1b/0` → `['a/b', '0']`; the validator URI-encodes each segment. */
export function decodeLocation(location: string): string[] {
  const body = location.startsWith('#') ? location.slice(1) : location;
  return body === ''
    ? []
    : body
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
