/**
 * The wording of argument problems: a sentence that names the field, what
 * it must be, and what was received, e.g.
 * `"user.age" must be an integer; received a string ("ten")`.
 * `output-units.ts` decides which findings the validator's errors make.
 */
import { isJsonObject, type JsonObject, type JsonValue } from './json.js';

/** A path into the arguments: property names and array indexes. */
export type ArgumentPath = readonly (string | number)[];

/** One thing wrong with the arguments: where, the JSON Schema keyword that failed, the sentence. */
export interface ArgumentProblem {
  readonly path: ArgumentPath;
  readonly keyword: string;
  readonly message: string;
}

/**
 * A problem before it is put into words: the `predicate` follows the
 * subject (`must be an integer; received …`). `type` findings keep the
 * names `expected`, so alternatives can merge.
 */
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
  if (typeof value === 'string') {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  if (value === undefined) return 'nothing';
  if (value === null || typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  if (typeof value !== 'object') return typeof value;
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

/** Schema values in a sentence: `"S", "M", "L"`, at most eight of them. */
function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_SHOWN).map((value) => JSON.stringify(value) ?? String(value));
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
  const here = (f: Finding | undefined): boolean =>
    f?.expected !== undefined && f.path.length === path.length;
  if (types.every(here))
    return typeFinding(
      path,
      types.flatMap((f) => f?.expected ?? []),
      value,
    );
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

/**
 * What a leaf keyword's sentence is made from: the schema's value for the
 * keyword (`own`, when it could be located), the schema object holding it,
 * the value judged, and the validator's own sentence.
 */
export interface Leaf {
  readonly own: JsonValue | undefined;
  readonly node: JsonObject | undefined;
  readonly value: unknown;
  readonly error: string;
}

const received = (value: unknown): string => `received ${describeValue(value)}`;
const show = (value: unknown): string => JSON.stringify(value) ?? 'nothing';

/** The predicate of each leaf keyword that quotes the schema's value. */
const QUOTING: Record<string, (leaf: Leaf & { own: JsonValue }) => string> = {
  const: ({ own, value }) => `must be ${listValues([own])}; ${received(value)}`,
  minimum: ({ own, value, node }) =>
    `must be ${node?.['exclusiveMinimum'] === true ? '>' : '>='} ${show(own)}; ${received(value)}`,
  maximum: ({ own, value, node }) =>
    `must be ${node?.['exclusiveMaximum'] === true ? '<' : '<='} ${show(own)}; ${received(value)}`,
  exclusiveMinimum: ({ own, value }) => `must be > ${show(own)}; ${received(value)}`,
  exclusiveMaximum: ({ own, value }) => `must be < ${show(own)}; ${received(value)}`,
  pattern: ({ own, value }) =>
    `must match /${typeof own === 'string' ? own : show(own)}/u; ${received(value)}`,
  multipleOf: ({ own, value }) => `must be a multiple of ${show(own)}; ${received(value)}`,
  enum: ({ own, value }) => {
    const values = Array.isArray(own) ? own : [];
    if (values.length === 0) return 'is not allowed here (the schema lists no value)';
    return `must be ${values.length === 1 ? '' : 'one of '}${listValues(values)}; ${received(value)}`;
  },
};
const SIZES: readonly [string, string, (value: unknown) => string][] = [
  [
    'Length',
    'character',
    (v) => `${describeValue(v)} (${typeof v === 'string' ? [...v].length : 0})`,
  ],
  ['Items', 'item', (v) => (Array.isArray(v) ? String(v.length) : describeValue(v))],
  ['Properties', 'property', (v) => String(isJsonObject(v) ? Object.keys(v).length : 0)],
];
for (const [what, noun, measure] of SIZES) {
  for (const [bound, word] of [
    ['min', 'least'],
    ['max', 'most'],
  ] as const) {
    QUOTING[`${bound}${what}`] = ({ own, value }) =>
      `must have at ${word} ${counted(own, noun)}; received ${measure(value)}`;
  }
}

/** Keywords that quote the schema's value in their sentence. */
export const QUOTING_KEYWORDS: ReadonlySet<string> = new Set(Object.keys(QUOTING));

/** The predicate of a failed leaf `keyword` (not `type`, not the missing-name keywords). */
export function leafPredicate(keyword: string, leaf: Leaf): string {
  const quote = QUOTING[keyword];
  if (quote !== undefined && leaf.own !== undefined) return quote({ ...leaf, own: leaf.own });
  switch (keyword) {
    case 'uniqueItems': {
      const pair = /indexes (\d+) and (\d+)/.exec(leaf.error);
      return `must not repeat items; item ${pair?.[2] ?? '?'} equals item ${pair?.[1] ?? '?'}`;
    }
    case 'not':
      return 'must not match the schema under "not"';
    case 'minContains':
    case 'maxContains':
      return `does not hold the right number of matching items: ${leaf.error}`;
    default:
      // Also a quoting keyword whose schema could not be located (e.g. behind $recursiveRef).
      return `is invalid: ${leaf.error}`;
  }
}
