/**
 * Turns what either validator reports into problems with a path into the
 * arguments and a sentence that names the field, what it must be, and what
 * was received — the same wording whichever validator ran.
 */
import type { OutputUnit } from '@cfworker/json-schema';
import type { z } from 'zod';
import type { SchemaNode } from './analyze.js';
import { isJsonObject, unescapePointerSegment, type JsonValue } from './json.js';

/** A path into the arguments: property names and array indexes. */
export type ArgumentPath = readonly (string | number)[];

/** One thing wrong with the arguments. */
export interface ArgumentProblem {
  /** Where, from the arguments object down. */
  readonly path: ArgumentPath;
  /** The JSON Schema keyword that failed, e.g. `type` or `required`. */
  readonly keyword: string;
  /** The full sentence, e.g. `"user.age" must be an integer; received a string ("5")`. */
  readonly message: string;
}

/** A problem before it is put into words: the subject is added last. */
interface Finding {
  readonly path: ArgumentPath;
  readonly keyword: string;
  /** What follows the subject, e.g. `must be an integer; received …`. */
  readonly predicate: string;
  /** For `type` findings: the names expected, so alternatives can merge. */
  readonly expected?: readonly string[];
}

const MAX_SHOWN = 8;

// ---------------------------------------------------------------- rendering

/** `user.tags[0]`, or `items["a.b"]` for names that are not identifiers. */
export function pathLabel(path: ArgumentPath): string {
  let label = '';
  for (const segment of path) {
    if (typeof segment === 'number') label += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) label += label === '' ? segment : `.${segment}`;
    else label += `[${JSON.stringify(segment)}]`;
  }
  return label;
}

/** The subject of a sentence about `path`: `the arguments` or `"a.b"`. */
export function subjectOf(path: ArgumentPath): string {
  return path.length === 0 ? 'the arguments' : JSON.stringify(pathLabel(path));
}

/** A short rendering of a received value: `"abc"`, `5`, `an array of 2 items`. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return JSON.stringify(shown);
  }
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'object') return typeof value;
  if (Array.isArray(value))
    return `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  return 'an object';
}

/** A received value with its JSON type: `a string ("5")`, `null`. */
export function describeTyped(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value) || typeof value === 'object') return describeValue(value);
  const kind = typeof value;
  return `${kind === 'string' || kind === 'number' || kind === 'boolean' ? 'a' : 'a value of type'} ${kind} (${describeValue(value)})`;
}

const TYPE_PHRASES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  int: 'an integer',
  boolean: 'a boolean',
  null: 'null',
  array: 'an array',
  tuple: 'an array',
  object: 'an object',
};

function typePhrase(names: readonly string[]): string {
  const phrases = [...new Set(names.map((name) => TYPE_PHRASES[name] ?? name))];
  if (phrases.length <= 1) return phrases[0] ?? 'nothing';
  return `${phrases.slice(0, -1).join(', ')} or ${phrases[phrases.length - 1] ?? ''}`;
}

function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_SHOWN).map((value) => JSON.stringify(value) ?? String(value));
  return values.length > MAX_SHOWN ? `${shown.join(', ')}, …` : shown.join(', ');
}

/** A schema value in a sentence: JSON for data, as-is for numbers. */
function show(value: unknown): string {
  return JSON.stringify(value) ?? 'nothing';
}

/**
 * One problem per path and keyword: zod can report a tuple's length twice,
 * and a summary may restate what its details say.
 */
function toProblems(findings: readonly Finding[]): ArgumentProblem[] {
  const seen = new Set<string>();
  const problems: ArgumentProblem[] = [];
  for (const finding of findings) {
    const key = `${finding.keyword} ${JSON.stringify(finding.path)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(toProblem(finding));
  }
  return problems;
}

function toProblem(finding: Finding): ArgumentProblem {
  return {
    path: finding.path,
    keyword: finding.keyword,
    message: `${subjectOf(finding.path)} ${finding.predicate}`,
  };
}

function typeFinding(path: ArgumentPath, expected: readonly string[], value: unknown): Finding {
  return {
    path,
    keyword: 'type',
    expected,
    predicate: `must be ${typePhrase(expected)}; received ${describeTyped(value)}`,
  };
}

/** One finding for a failed `anyOf`/`oneOf`, from its alternatives' findings. */
function alternativesFinding(
  path: ArgumentPath,
  keyword: string,
  value: unknown,
  alternatives: readonly (readonly Finding[])[],
): Finding {
  const firsts = alternatives.map((findings) => (findings.length === 1 ? findings[0] : undefined));
  if (
    firsts.every((f) => f?.keyword === 'type' && f.expected !== undefined && samePath(f.path, path))
  ) {
    const expected = firsts.flatMap((f) => f?.expected ?? []);
    return typeFinding(path, expected, value);
  }
  const described = alternatives.slice(0, MAX_SHOWN).map((findings, i) => {
    const parts = findings.slice(0, 2).map((f) => {
      const relative = f.path.slice(path.length);
      return relative.length === 0 ? f.predicate : `${subjectOf(relative)} ${f.predicate}`;
    });
    return `(${i + 1}) ${parts.length > 0 ? parts.join(', ') : 'does not match'}`;
  });
  return {
    path,
    keyword,
    predicate: `must match ${keyword === 'oneOf' ? 'exactly one' : 'at least one'} of ${alternatives.length} alternatives, but: ${described.join('; ')}`,
  };
}

function samePath(a: ArgumentPath, b: ArgumentPath): boolean {
  return a.length === b.length && a.every((segment, i) => segment === b[i]);
}

function valueAt(root: unknown, path: ArgumentPath): unknown {
  let current = root;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

// ---------------------------------------------------------------- zod path

const SAFE_INTEGER_BOUND = Number.MAX_SAFE_INTEGER;

/**
 * Problems from zod issues. Parse with `reportInput: true` so each issue
 * carries the value it judged.
 */
export function problemsFromZod(
  issues: readonly z.core.$ZodIssue[],
  root: unknown,
): ArgumentProblem[] {
  return toProblems(zodFindings(issues, [], root));
}

function zodFindings(
  issues: readonly z.core.$ZodIssue[],
  base: ArgumentPath,
  root: unknown,
): Finding[] {
  return issues.flatMap((issue) => zodFinding(issue, base, root));
}

function zodFinding(issue: z.core.$ZodIssue, base: ArgumentPath, root: unknown): Finding[] {
  const path: ArgumentPath = [...base, ...issue.path.map(toSegment)];
  const value = 'input' in issue ? issue.input : valueAt(root, path);
  // Arguments are JSON, so "nothing" at a path means a missing property or item.
  if (value === undefined && path.length > 0)
    return [invalidTypeFinding(path, 'nonoptional', value)];
  switch (issue.code) {
    case 'invalid_type':
      return [invalidTypeFinding(path, issue.expected, value)];
    case 'too_small':
    case 'too_big':
      return [sizeFinding(path, issue, value)];
    case 'invalid_format':
      if (issue.format === 'regex' && 'pattern' in issue && typeof issue.pattern === 'string') {
        return [
          {
            path,
            keyword: 'pattern',
            predicate: `must match ${issue.pattern}; received ${describeValue(value)}`,
          },
        ];
      }
      return [
        {
          path,
          keyword: 'format',
          predicate: `must be a valid ${issue.format}; received ${describeValue(value)}`,
        },
      ];
    case 'invalid_value':
      return [enumFinding(path, issue.values, value)];
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        path: [...path, key],
        keyword: 'additionalProperties',
        predicate: 'is not an allowed property',
      }));
    case 'invalid_union': {
      if (issue.errors.length === 0) {
        return [
          {
            path,
            keyword: 'oneOf',
            predicate: 'must match exactly one alternative, but matches more than one',
          },
        ];
      }
      // zod reports each alternative's issues relative to the union's own path.
      const alternatives = issue.errors.map((list) => zodFindings(list, path, root));
      const keyword = issue.inclusive === false ? 'oneOf' : 'anyOf';
      return [alternativesFinding(path, keyword, value, alternatives)];
    }
    case 'custom': {
      const duplicate = /index (\d+) duplicates the one at index (\d+)/.exec(issue.message);
      if (duplicate !== null) {
        const arrayPath = path.slice(0, -1);
        return [
          {
            path: arrayPath,
            keyword: 'uniqueItems',
            predicate: `must not repeat items; item ${duplicate[1] ?? '?'} equals item ${duplicate[2] ?? '?'}`,
          },
        ];
      }
      return [{ path, keyword: 'custom', predicate: `is invalid: ${issue.message}` }];
    }
    default:
      return [{ path, keyword: issue.code, predicate: `is invalid: ${issue.message}` }];
  }
}

function toSegment(key: PropertyKey): string | number {
  return typeof key === 'symbol' ? String(key) : key;
}

function invalidTypeFinding(path: ArgumentPath, expected: string, value: unknown): Finding {
  if (value === undefined && path.length > 0) {
    const last = path[path.length - 1];
    if (typeof last === 'number') {
      return {
        path: path.slice(0, -1),
        keyword: 'minItems',
        predicate: `must have an item at index ${last}`,
      };
    }
    return { path, keyword: 'required', predicate: 'is required' };
  }
  if (expected === 'never') return { path, keyword: 'false', predicate: 'is not allowed here' };
  return typeFinding(path, [expected], value);
}

function sizeFinding(
  path: ArgumentPath,
  issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig,
  value: unknown,
): Finding {
  const small = issue.code === 'too_small';
  const bound = Number(small ? issue.minimum : issue.maximum);
  const received = describeValue(value);
  switch (issue.origin) {
    case 'string':
      return {
        path,
        keyword: small ? 'minLength' : 'maxLength',
        predicate: `must be at ${small ? 'least' : 'most'} ${bound} character${bound === 1 ? '' : 's'} long; received ${received}`,
      };
    case 'array':
    case 'set':
      return {
        path,
        keyword: small ? 'minItems' : 'maxItems',
        predicate: `must have at ${small ? 'least' : 'most'} ${bound} item${bound === 1 ? '' : 's'}; received ${Array.isArray(value) ? value.length : received}`,
      };
    case 'object':
      return {
        path,
        keyword: small ? 'minProperties' : 'maxProperties',
        predicate: `must have at ${small ? 'least' : 'most'} ${bound} propert${bound === 1 ? 'y' : 'ies'}; received ${isJsonObject(value) ? Object.keys(value).length : received}`,
      };
    default: {
      if (Math.abs(bound) === SAFE_INTEGER_BOUND) {
        return {
          path,
          keyword: 'type',
          predicate: `must be an integer within ±${SAFE_INTEGER_BOUND} (larger ones lose precision in JavaScript); received ${received}`,
        };
      }
      const operator = small ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
      const keyword = small
        ? issue.inclusive
          ? 'minimum'
          : 'exclusiveMinimum'
        : issue.inclusive
          ? 'maximum'
          : 'exclusiveMaximum';
      return { path, keyword, predicate: `must be ${operator} ${bound}; received ${received}` };
    }
  }
}

function enumFinding(path: ArgumentPath, values: readonly unknown[], value: unknown): Finding {
  if (values.length === 0)
    return { path, keyword: 'enum', predicate: 'is not allowed here (the schema lists no value)' };
  if (values.length === 1) {
    return {
      path,
      keyword: 'const',
      predicate: `must be ${listValues(values)}; received ${describeValue(value)}`,
    };
  }
  return {
    path,
    keyword: 'enum',
    predicate: `must be one of ${listValues(values)}; received ${describeValue(value)}`,
  };
}

// ---------------------------------------------------------------- JSON Schema path

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

function falsePredicate(parentKeyword: string | undefined): string {
  switch (parentKeyword) {
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return 'is not an allowed property';
    case 'items':
    case 'prefixItems':
    case 'additionalItems':
    case 'unevaluatedItems':
      return 'is not an allowed item';
    default:
      return 'is not allowed here';
  }
}

function missingFindings(
  keyword: string,
  node: Record<string, JsonValue> | undefined,
  path: ArgumentPath,
  value: unknown,
): Finding[] {
  if (!isJsonObject(value) || node === undefined) return [];
  const present = (name: string): boolean => Object.hasOwn(value, name);
  if (keyword === 'required') {
    const names = Array.isArray(node['required']) ? node['required'] : [];
    return names
      .filter((name): name is string => typeof name === 'string' && !present(name))
      .map((name) => ({ path: [...path, name], keyword, predicate: 'is required' }));
  }
  const rules = node[keyword];
  if (!isJsonObject(rules)) return [];
  const findings: Finding[] = [];
  for (const [trigger, needed] of Object.entries(rules)) {
    if (!present(trigger) || !Array.isArray(needed)) continue;
    for (const name of needed) {
      if (typeof name === 'string' && !present(name)) {
        findings.push({
          path: [...path, name],
          keyword,
          predicate: `is required when ${JSON.stringify(trigger)} is present`,
        });
      }
    }
  }
  return findings;
}

function boundFinding(
  keyword: string,
  node: Record<string, JsonValue> | undefined,
  path: ArgumentPath,
  value: unknown,
): Finding {
  const received = describeValue(value);
  const own = node?.[keyword];
  // Draft 4 writes exclusive bounds as booleans beside minimum/maximum.
  const exclusive4 = (bound: string): boolean => node?.[bound] === true;
  switch (keyword) {
    case 'minimum':
      return {
        path,
        keyword,
        predicate: `must be ${exclusive4('exclusiveMinimum') ? '>' : '>='} ${show(own)}; received ${received}`,
      };
    case 'maximum':
      return {
        path,
        keyword,
        predicate: `must be ${exclusive4('exclusiveMaximum') ? '<' : '<='} ${show(own)}; received ${received}`,
      };
    case 'exclusiveMinimum':
      return { path, keyword, predicate: `must be > ${show(own)}; received ${received}` };
    default:
      return { path, keyword, predicate: `must be < ${show(own)}; received ${received}` };
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
