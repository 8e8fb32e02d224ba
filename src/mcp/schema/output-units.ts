/**
 * Problems from @cfworker/json-schema output units: the validator reports a
 * flat list in which summary units ("Property "a" does not match schema")
 * precede the units that explain them.
 */
import type { OutputUnit } from '@cfworker/json-schema';
import type { SchemaNode } from './analyze.js';
import {
  alternativesFinding,
  boundFinding,
  falsePredicate,
  missingFindings,
  describeValue,
  enumFinding,
  listValues,
  show,
  toProblems,
  typeFinding,
  valueAt,
  type ArgumentPath,
  type ArgumentProblem,
  type Finding,
} from './issues.js';
import { isJsonObject, unescapePointerSegment, type JsonValue } from './json.js';

/** Finds the schema at a validator `keywordLocation`, following `$ref`. */
export type SchemaLocator = (keywordLocation: string) => SchemaNode | JsonValue | undefined;

/** Leaf keywords whose sentence quotes the schema's value for them. */
const SCHEMA_VALUED = new Set([
  'required',
  'dependentRequired',
  'dependencies',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'multipleOf',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
]);

/** Keywords whose error only says a subschema failed; the subschema's own errors follow. */
const CONTAINER_KEYWORDS = new Set([
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

interface Unit extends OutputUnit {
  /** The keyword of the error this one explains, for `false` schemas. */
  readonly parentKeyword?: string;
}

/**
 * Problems from @cfworker/json-schema output units (run with
 * `shortCircuit = false`). Summary units ("Property "a" does not match
 * schema") are dropped where the units that follow say what is wrong; the
 * errors inside a failed `anyOf`/`oneOf` become one sentence.
 */
export function problemsFromOutputUnits(
  units: readonly OutputUnit[],
  instance: unknown,
  locate: SchemaLocator,
): ArgumentProblem[] {
  const prepared = prepareUnits(units);
  const reader = new UnitReader(prepared, instance, locate);
  return toProblems(reader.read(() => true));
}

/**
 * The validator gives a `false` schema's error the *instance* location as its
 * keyword location; it always directly follows the error it explains, so
 * re-home it under that one.
 */
function prepareUnits(units: readonly OutputUnit[]): Unit[] {
  const out: Unit[] = [];
  for (const unit of units) {
    const previous = out[out.length - 1];
    if (unit.keyword === 'false' && previous !== undefined) {
      out.push({
        ...unit,
        keywordLocation: `${previous.keywordLocation}/false`,
        parentKeyword: previous.keyword,
      });
    } else {
      out.push(unit);
    }
  }
  return out;
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
    for (
      let unit = this.units[this.index];
      unit !== undefined && belongs(unit);
      unit = this.units[this.index]
    ) {
      this.index++;
      if (unit.keyword === 'anyOf' || unit.keyword === 'oneOf') {
        findings.push(this.alternatives(unit, this.readBranches(unit)));
      } else if (unit.keyword === 'contains' || unit.keyword === 'propertyNames') {
        const prefix = `${unit.keywordLocation}/`;
        const first = this.units[this.index];
        if (
          unit.keyword === 'propertyNames' &&
          first?.keywordLocation.startsWith(prefix) === true
        ) {
          // The inner errors judge the property's *name*, located at the property.
          const name = decodeLocation(first.instanceLocation).pop();
          if (name !== undefined) this.names.set(first.instanceLocation, name);
        }
        const inner = this.read((next) => next.keywordLocation.startsWith(prefix));
        findings.push(this.subschemaFinding(unit, inner));
      } else if (unit.keyword === 'dependencies' && this.startsChildren(unit)) {
        continue;
      } else if (!CONTAINER_KEYWORDS.has(unit.keyword)) {
        findings.push(...this.leafFindings(unit));
      }
    }
    return findings;
  }

  /** The findings of each failed alternative of an `anyOf`/`oneOf`, in order. */
  private readBranches(unit: Unit): Finding[][] {
    const prefix = `${unit.keywordLocation}/`;
    const branches: Finding[][] = [];
    for (
      let next = this.units[this.index];
      next?.keywordLocation.startsWith(prefix);
      next = this.units[this.index]
    ) {
      const branch = next.keywordLocation.slice(prefix.length).split('/')[0] ?? '';
      const branchPrefix = `${prefix}${branch}/`;
      const before = this.index;
      branches.push(this.read((u) => u.keywordLocation.startsWith(branchPrefix)));
      // A unit we cannot place must still be consumed, or this loop would not end.
      if (this.index === before) this.index++;
    }
    return branches;
  }

  private startsChildren(unit: Unit): boolean {
    const next = this.units[this.index];
    return next !== undefined && next.keywordLocation.startsWith(`${unit.keywordLocation}/`);
  }

  private alternatives(unit: Unit, branches: readonly (readonly Finding[])[]): Finding {
    const path = this.pathOf(unit.instanceLocation);
    const matches = /\((\d+) matches\)/.exec(unit.error)?.[1];
    if (matches !== undefined && Number(matches) > 1) {
      return {
        path,
        keyword: 'oneOf',
        predicate: `must match exactly one alternative, but matches ${matches}`,
      };
    }
    return alternativesFinding(path, unit.keyword, valueAt(this.instance, path), branches);
  }

  private subschemaFinding(unit: Unit, inner: readonly Finding[]): Finding {
    const path = this.pathOf(unit.instanceLocation);
    if (unit.keyword === 'propertyNames') {
      // The inner errors are about the name, located at the property itself.
      const child = inner[0];
      const detail = child === undefined ? '' : `: ${child.predicate}`;
      return {
        path: child?.path ?? path,
        keyword: 'propertyNames',
        predicate: `is not an allowed property name${detail}`,
      };
    }
    return {
      path,
      keyword: 'contains',
      predicate: 'must contain at least one item that matches the "contains" schema',
    };
  }

  private leafFindings(unit: Unit): Finding[] {
    const path = this.pathOf(unit.instanceLocation);
    const name = this.names.get(unit.instanceLocation);
    const value = name ?? valueAt(this.instance, path);
    const parent = this.locate(parentLocation(unit.keywordLocation));
    const node = isJsonObject(parent) ? parent : undefined;
    const keywordValue = node?.[unit.keyword];
    const once = `${unit.keyword} ${unit.instanceLocation} ${unit.keywordLocation}`;
    if (unit.keyword === 'type') {
      // The validator's text lists the expected names: `... Expected "a", "b".`
      const listed = /Expected (".*")\.$/.exec(unit.error)?.[1] ?? '';
      const expected = [...listed.matchAll(/"([a-z]+)"/g)].map((match) => match[1] ?? '');
      return [typeFinding(path, expected, value)];
    }
    if (keywordValue === undefined && SCHEMA_VALUED.has(unit.keyword)) {
      // The schema could not be located (e.g. behind $recursiveRef): use the validator's words.
      return [{ path, keyword: unit.keyword, predicate: `is invalid: ${unit.error}` }];
    }
    switch (unit.keyword) {
      case 'false':
        return [{ path, keyword: 'false', predicate: falsePredicate(unit.parentKeyword) }];
      case 'required':
      case 'dependentRequired':
      case 'dependencies': {
        // One unit per missing name; report them all from the first.
        if (this.reported.has(once)) return [];
        this.reported.add(once);
        return missingFindings(unit.keyword, node, path, value);
      }
      case 'enum':
        return [enumFinding(path, Array.isArray(keywordValue) ? keywordValue : [], value)];
      case 'const':
        return [
          {
            path,
            keyword: 'const',
            predicate: `must be ${listValues([keywordValue])}; received ${describeValue(value)}`,
          },
        ];
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        return [boundFinding(unit.keyword, node, path, value)];
      case 'minLength':
      case 'maxLength': {
        const small = unit.keyword === 'minLength';
        const length = typeof value === 'string' ? [...value].length : 0;
        return [
          {
            path,
            keyword: unit.keyword,
            predicate: `must be at ${small ? 'least' : 'most'} ${show(keywordValue)} character${keywordValue === 1 ? '' : 's'} long; received ${describeValue(value)} (${length})`,
          },
        ];
      }
      case 'pattern':
        return [
          {
            path,
            keyword: 'pattern',
            predicate: `must match /${typeof keywordValue === 'string' ? keywordValue : ''}/u; received ${describeValue(value)}`,
          },
        ];
      case 'multipleOf':
        return [
          {
            path,
            keyword: 'multipleOf',
            predicate: `must be a multiple of ${show(keywordValue)}; received ${describeValue(value)}`,
          },
        ];
      case 'minItems':
      case 'maxItems': {
        const small = unit.keyword === 'minItems';
        return [
          {
            path,
            keyword: unit.keyword,
            predicate: `must have at ${small ? 'least' : 'most'} ${show(keywordValue)} item${keywordValue === 1 ? '' : 's'}; received ${Array.isArray(value) ? value.length : describeValue(value)}`,
          },
        ];
      }
      case 'minProperties':
      case 'maxProperties': {
        const small = unit.keyword === 'minProperties';
        const count = isJsonObject(value) ? Object.keys(value).length : 0;
        return [
          {
            path,
            keyword: unit.keyword,
            predicate: `must have at ${small ? 'least' : 'most'} ${show(keywordValue)} propert${keywordValue === 1 ? 'y' : 'ies'}; received ${count}`,
          },
        ];
      }
      case 'uniqueItems': {
        const pair = /indexes (\d+) and (\d+)/.exec(unit.error);
        return [
          {
            path,
            keyword: 'uniqueItems',
            predicate: `must not repeat items; item ${pair?.[2] ?? '?'} equals item ${pair?.[1] ?? '?'}`,
          },
        ];
      }
      case 'not':
        return [{ path, keyword: 'not', predicate: 'must not match the schema under "not"' }];
      case 'minContains':
      case 'maxContains':
        return [
          {
            path,
            keyword: unit.keyword,
            predicate: `does not hold the right number of matching items: ${unit.error}`,
          },
        ];
      default:
        return [{ path, keyword: unit.keyword, predicate: `is invalid: ${unit.error}` }];
    }
  }

  private pathOf(location: string): ArgumentPath {
    const segments = decodeLocation(location);
    const path: (string | number)[] = [];
    let current = this.instance;
    for (const segment of segments) {
      const index =
        Array.isArray(current) && /^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : undefined;
      path.push(index ?? segment);
      current =
        typeof current === 'object' && current !== null
          ? (current as Record<string, unknown>)[segment]
          : undefined;
    }
    return path;
  }
}

/** `#/a~1b/0` → `['a/b', '0']`; the validator URI-encodes each segment. */
export function decodeLocation(location: string): string[] {
  const body = location.startsWith('#') ? location.slice(1) : location;
  if (body === '') return [];
  return body
    .split('/')
    .slice(1)
    .map((segment) => unescapePointerSegment(safeDecode(segment)));
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function parentLocation(location: string): string {
  const cut = location.lastIndexOf('/');
  return cut <= 0 ? '#' : location.slice(0, cut);
}
