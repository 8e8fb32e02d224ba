/**
 * Turns the free-form "action input" a text-protocol agent writes after a
 * tool name into an arguments object.
 *
 * Models write arguments as JSON, as YAML, as `key: value` lines, or as a
 * plain sentence. The parser follows the seed's cascade (`params.go`): JSON,
 * YAML with structure, key-value pairs, raw text. It never throws: an agent's
 * typo must become a tool error the agent can read, not a crash of the loop
 * that runs it.
 */
import { isScalar, parseAllDocuments, visit } from 'yaml';
import type { DocumentOptions, ParseOptions, SchemaOptions } from 'yaml';
import { isPlainObject } from '../core/json.js';
import { coerceValue } from './coerce-value.js';

/**
 * Options of {@link parseActionInput}. Each one loosens the seed's cascade
 * where models often write something the seed would pass on as raw text;
 * all are off by default, so the default is the seed's behaviour.
 */
export interface ParseActionInputOptions {
  /**
   * A pair value in matching quotes is unquoted (JSON escapes honoured) and
   * not coerced, and commas inside the quotes stay in the value:
   * `msg: "hello, world", n=1` → `{ msg: "hello, world", n: 1 }`. The seed
   * keeps the quotes (`msg: "42"` → `'"42"'`) and splits on every comma.
   * @default false
   */
  readonly quotedValues?: boolean;
  /**
   * A comma-separated piece that is not a pair continues the value of the
   * pair before it on the same line: `labels: a, b` → `{ labels: "a, b" }`.
   * The seed splits there and, the piece ` b` not being a pair, passes the
   * whole text on as `{ input }`.
   * @default false
   */
  readonly commasInValues?: boolean;
  /**
   * A YAML list (`- a\n- b`, `[a, b]`) becomes `{ input: [...] }`. The seed
   * accepts YAML only when it is a map with a list or map value, so a list
   * stays raw text.
   * @default false
   */
  readonly yamlLists?: boolean;
}

/**
 * Parses an agent's action input into an arguments object; never throws.
 *
 * Readings, in order (the seed's cascade, `params.go`):
 * 1. blank text → `{}`;
 * 2. JSON, tried only when the text starts with `{`, `[` or `"`: an object
 *    is returned as is, any other value as `{ input: value }` (so `42` or
 *    `true` alone is raw text: `{ input: "42" }`);
 * 3. YAML (core schema, one document), accepted only when it yields a map
 *    with at least one list or map value. A map of scalars falls through,
 *    because YAML would read `a: 1, b=2` as `{ a: "1, b=2" }`; a bare list
 *    stays raw text (see {@link ParseActionInputOptions.yamlLists});
 * 4. `key: value` / `key=value` pairs split on commas and newlines, empty
 *    parts skipped. Every part must be a pair, otherwise the whole text is
 *    raw input: `k: v
plain text line` → `{ input: "k: v
plain text line" }`.
 *    A key is an identifier (`[A-Za-z_][\w.-]*`); `:` must be followed by
 *    a space or the end, so `http://host` is not a pair. A later duplicate
 *    key wins;
 * 5. otherwise `{ input: text }`, trimmed.
 *
 * Pair values are coerced as the seed's `coerceValue`: `true`/`false` and
 * `null`/`none` (any case) become booleans and `null`; integers are read as
 * Go's `strconv.ParseInt(s, 10, 64)` (`007` → 7, `+5` → 5), then floats as
 * `strconv.ParseFloat(s, 64)` (`1e3`, `.5`). NaN and Infinity stay strings
 * (SPEC §7), as do integers beyond ±(2^53 − 1), which a JavaScript number
 * cannot hold exactly.
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
 * parseActionInput('labels: a, b', { commasInValues: true }); // { labels: "a, b" }
 * ```
 */
export function parseActionInput(
  text: string,
  options: ParseActionInputOptions = {},
): Record<string, unknown> {
  // The signature says string, but agents' loops are often untyped JavaScript.
  if (typeof text !== 'string') {
    return text === null || text === undefined ? {} : { input: text };
  }
  const trimmed = text.trim();
  if (trimmed === '') return {};
  // Untyped callers may pass anything as options too.
  const settings: ParseActionInputOptions =
    typeof options === 'object' && options !== null ? options : {};
  try {
    return (
      fromJson(trimmed) ??
      fromYaml(trimmed, settings.yamlLists === true) ??
      fromPairs(trimmed, settings) ?? { input: trimmed }
    );
  } catch {
    // Every step guards itself; this is the backstop that keeps the promise
    // "never throws" if a dependency surprises us (e.g. a stack overflow).
    return { input: trimmed };
  }
}

type Parsed = Record<string, unknown> | undefined;

function fromJson(text: string): Parsed {
  // As the seed: only text that starts like a JSON object, array or string.
  if (!/^[{["]/.test(text)) return undefined;
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
  // `!!set`, `!!binary`, `!!timestamp` and `!!omap` would still be read as a
  // Set, a Uint8Array, a Date and a Map, which JSON cannot carry (a Set
  // became `{}`): an explicit tag of another schema leaves the plain value.
  resolveKnownTags: false,
  merge: false,
  uniqueKeys: true,
  // Errors are checked on the document; this only silences console warnings
  // (unknown tags and the like) that a library must not print.
  logLevel: 'silent',
};

function fromYaml(text: string, lists: boolean): Parsed {
  let value: unknown;
  try {
    const documents = parseAllDocuments(text, YAML_OPTIONS);
    // A stream of several documents has no single meaning as arguments.
    if (!Array.isArray(documents) || documents.length !== 1) return undefined;
    const [document] = documents;
    if (document === undefined || document.errors.length > 0) return undefined;
    visit(document, { Scalar: keepInexactNumberText });
    // The default alias limit guards against "billion laughs" expansion.
    value = document.toJS({ maxAliasCount: 100 });
  } catch {
    return undefined;
  }
  // An alias to its own ancestor (`&a [*a]`) builds a cycle that would break
  // anything serialising the arguments later.
  if (hasCycle(value)) return undefined;
  if (lists && Array.isArray(value)) return { input: value };
  if (isPlainObject(value) && Object.values(value).some(isCollection)) return value;
  return undefined;
}

/**
 * A number JSON cannot carry or JavaScript cannot hold exactly (`.inf`,
 * `.nan`, `1e400`, an integer past 2^53) stays its text, as the pairs'
 * coercion leaves it: sent as a number it would arrive as `null` or as
 * another number.
 */
function keepInexactNumberText(_key: unknown, node: unknown): void {
  if (!isScalar(node) || typeof node.value !== 'number') return;
  const { value } = node;
  const exact = Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value));
  if (!exact) node.value = typeof node.source === 'string' ? node.source : String(value);
}

// Identifier-like key, then `:` followed by a space (so `http://host` is not a
// pair) or the end, or `=`, then the value (which may hold a lone `\r`).
const PAIR = /^([A-Za-z_][\w.-]*)\s*(?::(?=\s|$)|=)\s*(.*)$/s;

// A pair whose value is one quoted string, up to the next comma or line end.
const QUOTED_PAIR =
  /^[ \t]*[A-Za-z_][\w.-]*[ \t]*(?::[ \t]+|=[ \t]*)(?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*')[ \t\r]*(?=,|$)/;

function fromPairs(text: string, options: ParseActionInputOptions): Parsed {
  const entries: [string, string][] = [];
  for (const line of text.split('\n')) {
    let last: [string, string] | undefined;
    const pieces = options.quotedValues === true ? splitQuoted(line) : line.split(',');
    for (const piece of pieces) {
      // The seed skips empty parts (`a: 1,, b: 2`).
      if (piece.trim() === '') continue;
      const match = PAIR.exec(piece.trim());
      const key = match?.[1];
      const raw = match?.[2];
      if (key !== undefined && raw !== undefined) {
        last = [key, raw];
        entries.push(last);
      } else if (options.commasInValues === true && last !== undefined) {
        last[1] = `${last[1]},${piece}`;
      } else {
        // As the seed: one part that is not a pair makes the whole text raw.
        return undefined;
      }
    }
  }
  if (entries.length === 0) return undefined;
  const value = options.quotedValues === true ? unquoteOrCoerce : coerceValue;
  // `Object.fromEntries` defines properties, so a `__proto__` key stays an own
  // property instead of replacing the prototype; later duplicates win.
  return Object.fromEntries(entries.map(([key, raw]) => [key, value(raw)]));
}

/** Splits a line on commas, except inside a pair's quoted value. */
function splitQuoted(line: string): string[] {
  const pieces: string[] = [];
  let rest = line;
  for (;;) {
    const quoted = QUOTED_PAIR.exec(rest)?.[0];
    const end = quoted === undefined ? rest.indexOf(',') : quoted.length;
    if (end === -1) {
      pieces.push(rest);
      return pieces;
    }
    pieces.push(rest.slice(0, end));
    if (end >= rest.length) return pieces;
    rest = rest.slice(end + 1); // past the comma
  }
}

function unquoteOrCoerce(raw: string): unknown {
  const text = raw.trim();
  if (/^"(?:[^"\\]|\\.)*"$/s.test(text)) {
    // Honour JSON escapes (`\n`, `\"`) when the string is valid JSON.
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === 'string') return value;
    } catch {
      // Not JSON (a raw control character, say): strip the quotes.
    }
    return text.slice(1, -1);
  }
  if (/^'[^']*'$/s.test(text)) return text.slice(1, -1);
  return coerceValue(text);
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
