/**
 * Turns the free-form "action input" a text-protocol agent writes after a
 * tool name into an arguments object.
 *
 * Models write arguments as JSON, as YAML, as `key: value` lines, or as a
 * plain sentence. The parser tries those readings from the strictest to the
 * loosest and never throws: an agent's typo must become a tool error the
 * agent can read, not a crash of the loop that runs it.
 */
import { parseAllDocuments } from 'yaml';
import type { DocumentOptions, ParseOptions, SchemaOptions } from 'yaml';

/**
 * Parses an agent's action input into an arguments object; never throws.
 *
 * Readings, in order:
 * 1. blank text → `{}`;
 * 2. JSON: an object is returned as is, any other value as `{ input: value }`;
 * 3. YAML (core schema, one document) when the result is a list
 *    (`{ input: list }`) or a map with at least one list or map value. A map
 *    of scalars falls through, because YAML would read
 *    `a: 1, b=2` as `{ a: "1, b=2" }`;
 * 4. `key: value` / `key=value` pairs separated by commas or newlines, with
 *    values coerced (see below). A comma-separated piece that is not a pair
 *    continues the value before it (`labels: a, b`); lines that are not pairs
 *    are kept, joined by newlines, under `input` unless a pair sets `input`;
 * 5. otherwise `{ input: text }`, trimmed.
 *
 * Pair values: `true`/`false` and `null`/`none` (any case) become booleans
 * and `null`; decimal integers and floats become numbers; `NaN` and
 * `Infinity` stay strings, as do integers with leading zeros (`007`) or too
 * large to be exact; a value in matching quotes is unquoted and not coerced.
 *
 * Keys such as `__proto__` become own properties of the result and never
 * change its prototype.
 *
 * @example
 * ```ts
 * parseActionInput('{"namespace": "default"}'); // { namespace: "default" }
 * parseActionInput('namespace: default, verbose=true\nlimit: 5');
 * // { namespace: "default", verbose: true, limit: 5 }
 * parseActionInput('get all pods'); // { input: "get all pods" }
 * ```
 */
export function parseActionInput(text: string): Record<string, unknown> {
  // The signature says string, but agents' loops are often untyped JavaScript.
  if (typeof text !== 'string') {
    return text === null || text === undefined ? {} : { input: text };
  }
  const trimmed = text.trim();
  if (trimmed === '') return {};
  try {
    return fromJson(trimmed) ?? fromYaml(trimmed) ?? fromPairs(trimmed) ?? { input: trimmed };
  } catch {
    // Every step guards itself; this is the backstop that keeps the promise
    // "never throws" if a dependency surprises us (e.g. a stack overflow).
    return { input: trimmed };
  }
}

type Parsed = Record<string, unknown> | undefined;

function fromJson(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  // JSON.parse defines `__proto__` as an own property, so its objects are
  // already safe to return as they are.
  return isPlainObject(value) ? value : { input: value };
}

const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  schema: 'core',
  customTags: [],
  merge: false,
  uniqueKeys: true,
  // Errors are checked on the document; this only silences console warnings
  // (unknown tags and the like) that a library must not print.
  logLevel: 'silent',
};

function fromYaml(text: string): Parsed {
  let value: unknown;
  try {
    const documents = parseAllDocuments(text, YAML_OPTIONS);
    // A stream of several documents has no single meaning as arguments.
    if (!Array.isArray(documents) || documents.length !== 1) return undefined;
    const [document] = documents;
    if (document === undefined || document.errors.length > 0) return undefined;
    // The default alias limit guards against "billion laughs" expansion.
    value = document.toJS({ maxAliasCount: 100 });
  } catch {
    return undefined;
  }
  // An alias to its own ancestor (`&a [*a]`) builds a cycle that would break
  // anything serialising the arguments later.
  if (hasCycle(value)) return undefined;
  if (Array.isArray(value)) return { input: value };
  if (isPlainObject(value) && Object.values(value).some(isCollection)) return value;
  return undefined;
}

// Identifier-like key, then `:` followed by a space (so `http://host` is not a
// pair) or `=`, then the value.
const PAIR = /^([A-Za-z_][\w.-]*)\s*(?::(?=\s|$)|=)\s*(.*)$/;

function fromPairs(text: string): Parsed {
  const entries: [string, string][] = [];
  const loose: string[] = [];
  for (const line of text.split(/\r?\n|\r/)) {
    let last: [string, string] | undefined;
    const leftover: string[] = [];
    for (const piece of line.split(',')) {
      const match = PAIR.exec(piece.trim());
      const key = match?.[1];
      const raw = match?.[2];
      if (key !== undefined && raw !== undefined) {
        last = [key, raw];
        entries.push(last);
      } else if (last !== undefined) {
        // A comma inside a value (`labels: a, b`, `msg: "hi, there"`).
        last[1] = `${last[1]},${piece}`;
      } else if (piece.trim() !== '') {
        leftover.push(piece);
      }
    }
    if (leftover.length > 0) loose.push(leftover.join(',').trim());
  }
  if (entries.length === 0) return undefined;
  const result: [string, unknown][] = entries.map(([key, raw]) => [key, coerce(raw.trim())]);
  if (loose.length > 0 && !entries.some(([key]) => key === 'input')) {
    // Keep the prose too: dropping it would silently lose what the agent said.
    result.unshift(['input', loose.join('\n')]);
  }
  // `Object.fromEntries` defines properties, so a `__proto__` key stays an own
  // property instead of replacing the prototype; later duplicates win.
  return Object.fromEntries(result);
}

const INTEGER = /^[-+]?(?:0|[1-9]\d*)$/;
const FLOAT = /^[-+]?(?:\d+\.\d+|\.\d+|\d+(?:\.\d+)?[eE][-+]?\d+)$/;

function coerce(raw: string): unknown {
  const quote = raw[0];
  if (raw.length >= 2 && (quote === '"' || quote === "'") && raw.endsWith(quote)) {
    return unquote(raw);
  }
  const lower = raw.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (lower === 'null' || lower === 'none') return null;
  if (INTEGER.test(raw)) {
    const number = Number(raw);
    // Ids longer than 2^53 would be silently rounded; keep them as text.
    return Number.isSafeInteger(number) ? number : raw;
  }
  if (FLOAT.test(raw)) {
    const number = Number(raw);
    return Number.isFinite(number) ? number : raw;
  }
  return raw;
}

function unquote(raw: string): string {
  if (raw.startsWith('"')) {
    // Honour JSON escapes (`\n`, `\"`) when the string is valid JSON.
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value === 'string') return value;
    } catch {
      // Not JSON: fall back to stripping the quotes.
    }
  }
  return raw.slice(1, -1);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.getPrototypeOf(value) === Object.prototype;
}

function isCollection(value: unknown): boolean {
  return Array.isArray(value) || isPlainObject(value);
}

function hasCycle(value: unknown, ancestors: Set<object> = new Set()): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (ancestors.has(value)) return true;
  ancestors.add(value);
  const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
  const cyclic = children.some((child) => hasCycle(child, ancestors));
  ancestors.delete(value);
  return cyclic;
}
