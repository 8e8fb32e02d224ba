/**
 * The wording of argument problems: a sentence that names the field, what
 * it must be, and what was received, e.g.
 * `"user.age" must be an integer; received a string ("ten")`.
 * `output-units.ts` decides which findings the validator's errors make.
 */
import { isJsonRecord, type JsonRecord, type JsonData } from '../../core/json.js';

/** A path into the arguments: property names and array indexes. */
export type ArgumentPath = readonly (string | number)[];

/** One thing wrong with the arguments: where, the JSON Schema keyword that failed, the sentence. */
export interface ArgumentProblem {
  readonly path: ArgumentPath;
  readonly keyword: string;
  readonly message: string;
}

/** A problem before its subject is added: `must be …; received …` (with the type names `expected`). */
export interface Finding {
  readonly path: ArgumentPath;
  readonly keyword: string;
  readonly predicate: string;
  readonly expected?: readonly string[];
}

const MAX_SHOWN = 8;

/** The subject of a sentence about `path`: `the arguments`, `"user.tags[0]"`, `"items[\"a.b\"]"`. */
export function subjectOf(path: ArgumentPath): string {
  if (path.length === 0) return 'the arguments';
  let label = '';
  for (const segment of path) {
    if (typeof segment === 'number') label += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) label += label === '' ? segment : `.${segment}`;
    else label += `[${JSON.stringify(segment)}]`;
  }
  return JSON.stringify(label);
}

/** A short rendering of a received value: `"abc"`, `5`, `an array of 2 items`. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return `${value}`;
  if (typeof value !== 'object') return value === undefined ? 'nothing' : typeof value;
  return Array.isArray(value) ? `an array of ${counted(value.length, 'item')}` : 'an object';
}

/** A received value with its JSON type: `a string ("5")`, `null`. */
export function describeTyped(value: unknown): string {
  const kind = typeof value;
  if (value === null || value === undefined || kind === 'object') return describeValue(value);
  const article = ['string', 'number', 'boolean'].includes(kind) ? 'a' : 'a value of type';
  return `${article} ${kind} (${describeValue(value)})`;
}

/** `1 item`, `2 items`, `1 property`, `3 properties`. */
function counted(count: unknown, noun: string): string {
  const plural = noun.endsWith('y') ? `${noun.slice(0, -1)}ies` : `${noun}s`;
  return `${JSON.stringify(count) ?? 'nothing'} ${count === 1 ? noun : plural}`;
}

/** Longest string of the schema's that a message quotes; a longer one is named by its length. */
const MAX_QUOTED_STRING = 80;

/**
 * Schema values in a sentence: `"S", "M", "L"`, at most eight of them; a
 * long string by its length alone (cut, its start could be the start of a
 * secret, which masking finds only whole).
 */
function listValues(values: readonly unknown[]): string {
  const shown = values
    .slice(0, MAX_SHOWN)
    .map((value) =>
      typeof value === 'string' && value.length > MAX_QUOTED_STRING
        ? `the schema's string of ${value.length} characters`
        : (JSON.stringify(value) ?? String(value)),
    );
  return values.length > MAX_SHOWN ? `${shown.join(', ')}, …` : shown.join(', ');
}

const TYPE_PHRASES: Readonly<Record<string, string>> = {
  ...{ string: 'a string', number: 'a number', integer: 'an integer', boolean: 'a boolean' },
  ...{ null: 'null', array: 'an array', object: 'an object' },
};

/** `must be a string or null; received …` for the type names `expected`. */
export function typeFinding(
  path: ArgumentPath,
  expected: readonly string[],
  value: unknown,
): Finding {
  const phrases = [...new Set(expected.map((name) => TYPE_PHRASES[name] ?? name))];
  const last = phrases.pop() ?? 'nothing';
  const phrase = phrases.length === 0 ? last : `${phrases.join(', ')} or ${last}`;
  const predicate = `must be ${phrase}; received ${describeTyped(value)}`;
  return { path, keyword: 'type', expected, predicate };
}

/** One finding for a failed `anyOf`/`oneOf`, from its alternatives' findings. */
export function alternativesFinding(
  path: ArgumentPath,
  keyword: string,
  value: unknown,
  alternatives: readonly (readonly Finding[])[],
): Finding {
  // Alternatives that differ only by type merge into one: "must be a string or an integer".
  const types = alternatives.map((findings) => (findings.length === 1 ? findings[0] : undefined));
  const expected = types.flatMap((f) => (f?.path.length === path.length ? (f.expected ?? []) : []));
  if (types.every((f) => f?.expected !== undefined && f.path.length === path.length)) {
    return typeFinding(path, expected, value);
  }
  const described = alternatives.slice(0, MAX_SHOWN).map((findings, i) => {
    const parts = findings.slice(0, 2).map((f) => {
      const relative = f.path.slice(path.length);
      return relative.length === 0 ? f.predicate : `${subjectOf(relative)} ${f.predicate}`;
    });
    return `(${i + 1}) ${parts.length > 0 ? parts.join(', ') : 'does not match'}`;
  });
  const how = keyword === 'oneOf' ? 'exactly one' : 'at least one';
  const predicate = `must match ${how} of ${alternatives.length} alternatives, but: ${described.join('; ')}`;
  return { path, keyword, predicate };
}

const received = (value: unknown): string => `received ${describeValue(value)}`;
const show = (value: unknown): string => JSON.stringify(value) ?? 'nothing';
const length = (v: unknown): string =>
  `${describeValue(v)} (${typeof v === 'string' ? [...v].length : 0})`;
const items = (v: unknown): string => (Array.isArray(v) ? String(v.length) : describeValue(v));
const size = (v: unknown): string => String(isJsonRecord(v) ? Object.keys(v).length : 0);
type Quote = (own: JsonData, value: unknown, node: JsonRecord | undefined) => string;
const count =
  (word: string, noun: string, measure: (value: unknown) => string): Quote =>
  (own, value) =>
    `must have at ${word} ${counted(own, noun)}; received ${measure(value)}`;

/** The predicate of each leaf keyword that quotes the schema's value (`own`) for it. */
const QUOTING: Readonly<Record<string, Quote>> = {
  const: (own, value) => `must be ${listValues([own])}; ${received(value)}`,
  enum: (own, value) => {
    const values = Array.isArray(own) ? own : [];
    if (values.length === 0) return 'is not allowed here (the schema lists no value)';
    return `must be ${values.length === 1 ? '' : 'one of '}${listValues(values)}; ${received(value)}`;
  },
  minimum: (own, value, node) =>
    `must be ${node?.['exclusiveMinimum'] === true ? '>' : '>='} ${show(own)}; ${received(value)}`,
  maximum: (own, value, node) =>
    `must be ${node?.['exclusiveMaximum'] === true ? '<' : '<='} ${show(own)}; ${received(value)}`,
  exclusiveMinimum: (own, value) => `must be > ${show(own)}; ${received(value)}`,
  exclusiveMaximum: (own, value) => `must be < ${show(own)}; ${received(value)}`,
  multipleOf: (own, value) => `must be a multiple of ${show(own)}; ${received(value)}`,
  pattern: (own, value) =>
    `must match /${typeof own === 'string' ? own : show(own)}/u; ${received(value)}`,
  minLength: count('least', 'character', length),
  maxLength: count('most', 'character', length),
  minItems: count('least', 'item', items),
  maxItems: count('most', 'item', items),
  minProperties: count('least', 'property', size),
  maxProperties: count('most', 'property', size),
};

/** The predicate of other leaf keywords, from the validator's own sentence. */
const UNQUOTED: Readonly<Record<string, (error: string) => string>> = {
  uniqueItems: (error) => {
    const pair = /indexes (\d+) and (\d+)/.exec(error);
    return `must not repeat items; item ${pair?.[2] ?? '?'} equals item ${pair?.[1] ?? '?'}`;
  },
  not: () => 'must not match the schema under "not"',
  minContains: (error) => `does not hold the right number of matching items: ${error}`,
  maxContains: (error) => `does not hold the right number of matching items: ${error}`,
};

/**
 * The predicate of a failed leaf `keyword` (not `type`, not the missing-name
 * keywords); the validator's words where the schema's value (`own`) could
 * not be located, e.g. behind `$recursiveRef`, or we have none of our own.
 */
export function leafPredicate(
  keyword: string,
  leaf: { own: JsonData | undefined; node: JsonRecord | undefined; value: unknown; error: string },
): string {
  const quote = QUOTING[keyword];
  if (quote !== undefined && leaf.own !== undefined) return quote(leaf.own, leaf.value, leaf.node);
  return UNQUOTED[keyword]?.(leaf.error) ?? `is invalid: ${leaf.error}`;
}
