/**
 * The wording of argument problems: a problem has a path into the
 * arguments and a sentence that names the field, what it must be, and what
 * was received. `output-units.ts` turns the validator's errors into these
 * findings.
 */
import { isJsonObject, type JsonValue } from './json.js';

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
export interface Finding {
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

export function typePhrase(names: readonly string[]): string {
  const phrases = [...new Set(names.map((name) => TYPE_PHRASES[name] ?? name))];
  if (phrases.length <= 1) return phrases[0] ?? 'nothing';
  return `${phrases.slice(0, -1).join(', ')} or ${phrases[phrases.length - 1] ?? ''}`;
}

export function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_SHOWN).map((value) => JSON.stringify(value) ?? String(value));
  return values.length > MAX_SHOWN ? `${shown.join(', ')}, …` : shown.join(', ');
}

/** A schema value in a sentence: JSON for data, as-is for numbers. */
export function show(value: unknown): string {
  return JSON.stringify(value) ?? 'nothing';
}

/**
 * One problem per path and keyword: a validator can report a tuple's length twice,
 * and a summary may restate what its details say.
 */
export function toProblems(findings: readonly Finding[]): ArgumentProblem[] {
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

export function typeFinding(
  path: ArgumentPath,
  expected: readonly string[],
  value: unknown,
): Finding {
  return {
    path,
    keyword: 'type',
    expected,
    predicate: `must be ${typePhrase(expected)}; received ${describeTyped(value)}`,
  };
}

/** One finding for a failed `anyOf`/`oneOf`, from its alternatives' findings. */
export function alternativesFinding(
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

export function valueAt(root: unknown, path: ArgumentPath): unknown {
  let current = root;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

export function enumFinding(
  path: ArgumentPath,
  values: readonly unknown[],
  value: unknown,
): Finding {
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

/** What a `false` schema says, by the keyword that holds it. */
export function falsePredicate(parentKeyword: string | undefined): string {
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

/** The names `required`, `dependentRequired` or `dependencies` find missing. */
export function missingFindings(
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

/** A number outside `minimum`/`maximum` or an exclusive bound (draft 4's booleans too). */
export function boundFinding(
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
