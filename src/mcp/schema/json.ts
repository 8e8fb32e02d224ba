/**
 * What the schema layer bounds and refuses: its limits, its problem type,
 * and one walk over a schema that writes no text.
 */
import type { JsonRecord } from '../../core/json.js';

/** Why a schema is refused; it names no tool, so one cached refusal serves every tool. */
export class SchemaProblem extends Error {
  override readonly name: string = 'SchemaProblem';
}

/** Deeper than this and the schema is refused: no real tool needs it, and walks must not overflow. */
export const MAX_SCHEMA_DEPTH = 200;

/** Largest tool schema accepted, in characters of JSON. */
export const MAX_SCHEMA_TEXT_LENGTH = 262_144;

/** The bounds of any schema written out as JSON text (`canonicalJsonText`, `boundedJsonText`). */
export const SCHEMA_TEXT_LIMITS = Object.freeze({
  maxDepth: MAX_SCHEMA_DEPTH,
  maxChars: MAX_SCHEMA_TEXT_LENGTH,
});

/** What one walk over a schema finds. */
export interface SchemaSurvey {
  /** Its length as JSON text, escapes aside; past the limit, where the walk stopped. */
  readonly chars: number;
  /** The objects and arrays it met (each costs memory its text does not show), up to where it stopped. */
  readonly containers: number;
  /**
   * The objects that may be schemas (all but data: see {@link memberKind})
   * with a local `$ref`, `$dynamicRef` or `$recursiveRef`.
   */
  readonly referring: readonly JsonRecord[];
  /**
   * Those with an `$anchor` or `$dynamicAnchor`, or an `$id` (`id` in draft
   * 4) that is a fragment: where a `#name` reference may lead.
   */
  readonly anchored: readonly JsonRecord[];
  /** Those with a `pattern` or `patternProperties`. */
  readonly patterned: readonly JsonRecord[];
}

const NONE: readonly JsonRecord[] = Object.freeze([]);

// The walks' stack of containers still to walk, kept between walks. A walk
// uses the part above where it found it (a getter of an in-process
// server's schema may start another walk) and cuts it back there when it
// ends, even by a throw.
const pending: object[] = [];
// The containers the survey in progress has met in data (under enum,
// default, …); a survey started inside another (by a getter) counts its
// own and gives the outer count back. Schemas' own are counted locally.
let dataContainers = 0;

/**
 * Surveys `root` without writing it out, in one pass over its containers,
 * counted as JSON would write them: a container met twice (shared, or a
 * cycle, which only an in-process server can send) is counted twice, so a
 * cycle or a huge schema ends the walk at {@link MAX_SCHEMA_TEXT_LENGTH}.
 * It runs for every tool a server lists, so it allocates nothing for a
 * schema with no reference, anchor or pattern, and asks whether a key is
 * an object's own only when its prototype could have added it.
 */
export function surveySchema(root: unknown): SchemaSurvey {
  let referring = NONE as JsonRecord[];
  let anchored = NONE as JsonRecord[];
  let patterned = NONE as JsonRecord[];
  if (typeof root !== 'object' || root === null) {
    return { chars: scalarChars(root), containers: 0, referring, anchored, patterned };
  }
  // A for…in also yields the enumerable keys of the prototype chain: a plain
  // object has none, unless someone gave Object.prototype one.
  const plainKeysAreOwn = prototypeAddsNoKeys();
  let chars = 0;
  let containers = 0;
  let met = 0;
  const outerDataContainers = dataContainers;
  dataContainers = 0;
  const base = pending.length;
  pending.push(root);
  try {
    while (pending.length > base && chars <= MAX_SCHEMA_TEXT_LENGTH) {
      const node = pending.pop() as object;
      containers++;
      if (Array.isArray(node)) {
        chars += arrayChars(node);
        continue;
      }
      const prototype: unknown = Object.getPrototypeOf(node);
      const ownKeysOnly = prototype === null || (plainKeysAreOwn && prototype === Object.prototype);
      let members = 0;
      let refers = false;
      let anchors = false;
      let patterns = false;
      for (const key in node) {
        if (!ownKeysOnly && !Object.hasOwn(node, key)) continue;
        members++;
        chars += key.length + 3;
        const value = (node as JsonRecord)[key];
        const first = key.charCodeAt(0);
        if (first === 36 /* $ */) {
          if (REFERENCE_KEYWORDS.has(key)) {
            refers ||= typeof value === 'string' && value.startsWith('#');
          } else {
            anchors ||=
              key === '$anchor' || key === '$dynamicAnchor' || (key === '$id' && isFragment(value));
          }
        } else if (first === 112 /* p */) {
          patterns ||= key === 'pattern' || key === 'patternProperties';
        } else if (first === 105 /* i */) {
          anchors ||= key === 'id' && isFragment(value);
        }
        if (typeof value === 'string') chars += value.length + 2;
        else if (typeof value !== 'object' || value === null) chars += scalarChars(value);
        else {
          const kind = memberKind(key);
          if (kind === DATA && (key !== 'examples' || Array.isArray(value))) {
            chars += dataChars(value, MAX_SCHEMA_TEXT_LENGTH - chars);
          } else if (kind === SCHEMA_MAP && !Array.isArray(value)) {
            containers++;
            chars += mapChars(value, plainKeysAreOwn);
          } else pending.push(value);
        }
      }
      if (refers) referring = append(referring, node as JsonRecord);
      if (anchors) anchored = append(anchored, node as JsonRecord);
      if (patterns) patterned = append(patterned, node as JsonRecord);
      chars += 1 + (members > 1 ? members : 1); // braces and commas
    }
  } finally {
    // Holds nothing of this walk after it, so that no schema is kept alive by
    // it. Most walks end with the stack back at `base`: setting a length is a
    // call into the engine, so it is set only when the walk stopped early.
    if (pending.length !== base) pending.length = base;
    met = containers + dataContainers;
    dataContainers = outerDataContainers;
  }
  return { chars, containers: met, referring, anchored, patterned };
}

/** What an object or array under a keyword is: a schema (or a list of them), data, or a map of schemas. */
const SCHEMA = 0;
const DATA = 1;
const SCHEMA_MAP = 2;

/**
 * The kind of what a schema holds under `key`. Data is never a schema:
 * `examples` is data as the array JSON Schema defines, but the validator
 * (@cfworker/json-schema) indexes an object under it as a schema, so the
 * survey walks one as a schema too. A map's names are the user's choosing:
 * a property named `enum` or `pattern` is a name, not a keyword. A switch
 * rather than two sets: it runs for every object and array of every
 * listed schema, and measured 5% of the survey faster.
 */
function memberKind(key: string): typeof SCHEMA | typeof DATA | typeof SCHEMA_MAP {
  switch (key) {
    case 'enum':
    case 'const':
    case 'default':
    case 'examples':
      return DATA;
    case 'properties':
    case 'patternProperties':
    case '$defs':
    case 'definitions':
    case 'dependentSchemas':
    case 'dependencies':
      return SCHEMA_MAP;
    default:
      return SCHEMA;
  }
}

/** The characters of a map of schemas, its names read as names; its schemas go on the stack. */
function mapChars(map: object, plainKeysAreOwn: boolean): number {
  const prototype: unknown = Object.getPrototypeOf(map);
  const ownKeysOnly = prototype === null || (plainKeysAreOwn && prototype === Object.prototype);
  let members = 0;
  let chars = 0;
  for (const name in map) {
    if (!ownKeysOnly && !Object.hasOwn(map, name)) continue;
    members++;
    chars += name.length + 3;
    const value = (map as JsonRecord)[name];
    if (typeof value !== 'object' || value === null) chars += scalarChars(value);
    else pending.push(value);
    if (chars > MAX_SCHEMA_TEXT_LENGTH) break;
  }
  return chars + 1 + (members > 1 ? members : 1);
}

/**
 * The characters of data (a value under a data keyword, see {@link memberKind}: never a
 * schema, so nothing in it is listed), walked on the same stack above the
 * survey's part; it stops once past `budget`. A throw is left to the
 * survey, which cuts the stack back.
 */
function dataChars(root: object, budget: number): number {
  let chars = 0;
  const base = pending.length;
  pending.push(root);
  while (pending.length > base && chars <= budget) {
    const node = pending.pop() as object;
    dataContainers++;
    if (Array.isArray(node)) {
      chars += arrayChars(node);
      continue;
    }
    let members = 0;
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      members++;
      chars += key.length + 3;
      const value = (node as JsonRecord)[key];
      if (typeof value !== 'object' || value === null) chars += scalarChars(value);
      else pending.push(value);
    }
    chars += 1 + (members > 1 ? members : 1);
  }
  if (pending.length !== base) pending.length = base;
  return chars;
}

/** The characters of an array's brackets, commas and scalars; its containers go on the stack. */
function arrayChars(array: readonly unknown[]): number {
  const members = array.length;
  let chars = 1 + (members > 1 ? members : 1);
  // A sparse array of an in-process server may be billions long: past the limit unread.
  if (chars > MAX_SCHEMA_TEXT_LENGTH) return chars;
  for (let index = 0; index < members; index++) {
    const item: unknown = array[index];
    if (typeof item !== 'object' || item === null) chars += scalarChars(item);
    else pending.push(item);
  }
  return chars;
}

/** True while `Object.prototype` has no enumerable key, which every for…in would meet. */
function prototypeAddsNoKeys(): boolean {
  for (const _ in Object.prototype) return false;
  return true;
}

/**
 * An identifier that names its schema the way an anchor does: one with a
 * fragment (`#name`, or `https://x/y#name`).
 */
function isFragment(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const hash = value.indexOf('#');
  return hash >= 0 && hash < value.length - 1;
}

/** `list` with `node` added; the shared empty list is replaced by a list of its own. */
function append(list: JsonRecord[], node: JsonRecord): JsonRecord[] {
  if (list === NONE) return [node];
  list.push(node);
  return list;
}

/** The length of a scalar as JSON text, escapes aside. */
function scalarChars(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'boolean') return value ? 4 : 5;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return integerChars(value);
  if (typeof value === 'number' || value === null || value === undefined) {
    return String(value).length;
  }
  // Only an in-process server can send these; JSON.stringify would throw on a
  // bigint and call a function named toJSON.
  throw new SchemaProblem(`the schema holds a ${typeof value}, which JSON cannot carry`);
}

/** Digits (and sign) of a safe integer, without writing it. */
function integerChars(value: number): number {
  let chars = value < 0 ? 2 : 1;
  for (let rest = Math.abs(value); rest >= 10; rest = Math.floor(rest / 10)) chars++;
  return chars;
}

/** Keywords that refer to another schema for the same value. */
export const REFERENCE_KEYWORDS = new Set(['$ref', '$dynamicRef', '$recursiveRef']);
