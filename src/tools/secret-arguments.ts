/**
 * Which tool arguments are secrets, so that telemetry never records them.
 *
 * A property is secret when its JSON Schema says so — `"x-secret": true` or
 * `"writeOnly": true` — or when its name does: split into words (camelCase,
 * snake_case, kebab-case, dots), one word is `password`, `passwd`,
 * `passphrase`, `pwd`, `secret`, `token`, `credential(s)`, `cookie`,
 * `authorization`, `auth`, `apikey`, `privatekey`, `accesskey`, or two
 * adjacent words are `api key`, `private key`, `access key`. So `apiKey`,
 * `client_secret`, `X-Auth-Token` and `db.password` are secret, and
 * `max_tokens` is not. The whole value of a secret property (an object or
 * list included) is withheld. Schemas are followed through `properties`,
 * `additionalProperties`, `items` and `prefixItems`, and into every branch
 * of `anyOf`, `oneOf` and `allOf` (how zod 4 writes `.nullable()`, unions
 * and intersections): a property is secret when any branch marks it, and a
 * value's properties and items are looked up in every branch at once. A
 * local `$ref` (`#`, `#/$defs/Creds`, any JSON Pointer into the tool's
 * schema, how Pydantic and zod write nested models) is followed like a
 * branch, each schema once so that cycles end; so are `if`, `then`,
 * `else`, `dependentSchemas` and `dependencies`, and every
 * `patternProperties` schema applies to every property (whether a pattern
 * matches is not decided here). Fail closed: a value whose
 * schemas cannot all be known — a `$ref` to another document or to nothing,
 * or more schemas than a lookup takes in — is withheld whole.
 */
import type { JsonSchema } from './tool.js';

/** What replaces a withheld value. */
export const SECRET_MASK = '***';

const SECRET_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'secret',
  'token',
  'credential',
  'credentials',
  'cookie',
  'authorization',
  'auth',
  'apikey',
  'privatekey',
  'accesskey',
]);
const SECRET_PAIRS = new Set(['api key', 'private key', 'access key']);

/** Secret values shorter than this are not scrubbed from free text (they would mangle it). */
const MIN_SCRUBBED_LENGTH = 3;

/** Whether an argument name reads as a secret (see the module comment for the rule). */
export function isSecretArgumentName(name: string): boolean {
  // Lookahead, not a run of capitals then one more: that backtracked on a key of 40,000 capitals.
  const words = name
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
  return words.some(
    (word, index) =>
      SECRET_WORDS.has(word) ||
      (index > 0 && SECRET_PAIRS.has(`${words[index - 1] ?? ''} ${word}`)),
  );
}

/**
 * Whether a property schema marks its value secret (`x-secret` or
 * `writeOnly`), on itself or on any schema that applies to the same value:
 * a branch of its `anyOf`, `oneOf` or `allOf`, or the target of a `$ref`
 * into `schema` (taken as the root), at any depth. A value that may be
 * secret is treated as secret: so is one behind a `$ref` that does not
 * resolve, or behind more schemas than are looked at.
 */
export function isSecretSchema(schema: unknown): boolean {
  return new SchemaReader(schema).applicable([schema]).secret;
}

/** Most names {@link namesSecretArgument} remembers: a model may send keys without end. */
const MAX_REMEMBERED_NAMES = 4_096;
const secretNames = new Map<string, boolean>();

/**
 * Whether `args` has, at any depth (up to the masking's), a key secret to
 * {@link isSecretArgumentName}: an open map (`headers`) may carry an
 * `Authorization` its schema never names. Cheap for the common call: each
 * key's verdict is remembered.
 */
export function namesSecretArgument(args: unknown, depth = 0): boolean {
  // Recursive (bounded by the masking's depth), so the common flat call allocates nothing.
  if (typeof args !== 'object' || args === null || depth > MAX_DEPTH) return false;
  if (Array.isArray(args)) return args.some((item) => namesSecretArgument(item, depth + 1));
  for (const key in args) {
    if (!Object.hasOwn(args, key)) continue;
    if (isRememberedSecretName(key)) return true;
    const value = (args as Record<string, unknown>)[key];
    if (typeof value === 'object' && value !== null && namesSecretArgument(value, depth + 1)) {
      return true;
    }
  }
  return false;
}

function isRememberedSecretName(key: string): boolean {
  let secret = secretNames.get(key);
  if (secret === undefined) {
    secret = isSecretArgumentName(key);
    if (secretNames.size < MAX_REMEMBERED_NAMES) secretNames.set(key, secret);
  }
  return secret;
}

/**
 * Whether `schema` may make any argument secret by these rules: some
 * subschema, anywhere, is marked `x-secret` or `writeOnly`, or some
 * `properties` has a name secret to {@link isSecretArgumentName}, or some
 * `$ref` does not resolve inside `schema` (masking then withholds the
 * value). Every subschema is looked at, not only those masking follows, so
 * a `$ref` target is seen where it is written: a schema wrongly taken to
 * have secrets costs a search that finds none, the other way round would
 * publish them. A schema too deep or too large to look at in full is taken
 * to have secrets; that bound is also what lets masking never give up on a
 * schema this function passes. A property the schema does not declare is
 * not seen: a schema that mentions no secret is taken to have none.
 */
export function declaresSecretArguments(schema: unknown): boolean {
  const reader = new SchemaReader(schema);
  // Each masking lookup reaches at most as many schemas as the schema has
  // JSON values; half the step bound leaves room to spare.
  let budget = MAX_SCHEMA_STEPS / 2;
  const declares = (node: unknown, depth: number): boolean => {
    budget -= 1;
    // Deeper or larger than any real schema: taken to have secrets rather than looked at further.
    if (budget < 0 || depth > 2 * MAX_DEPTH) return true;
    if (typeof node !== 'object' || node === null) return false;
    if (Array.isArray(node)) return node.some((item) => declares(item, depth + 1));
    const object = node as Record<string, unknown>;
    if (marksSecret(object)) return true;
    const { properties } = object;
    if (isObject(properties) && Object.keys(properties).some(isSecretArgumentName)) return true;
    const unresolved = REF_KEYWORDS.some(
      (keyword) => Object.hasOwn(object, keyword) && reader.resolve(object[keyword]) === UNRESOLVED,
    );
    if (unresolved) return true;
    return Object.values(object).some((value) => declares(value, depth + 1));
  };
  return declares(schema, 0);
}

/** Arguments with every secret withheld, and the withheld values (for scrubbing text). */
export interface MaskedArguments {
  readonly masked: unknown;
  /** Every string (and number, as text) found inside withheld values. */
  readonly secrets: readonly string[];
}

/**
 * Replaces every secret argument's value by `***`; the input is not changed.
 * `$ref`s in `schema` are resolved against `schema` itself. Where the
 * schemas of a value cannot be known (a `$ref` that does not resolve, more
 * schemas than are looked at), its properties and items are all withheld.
 */
export function maskSecretArguments(args: unknown, schema?: JsonSchema): MaskedArguments {
  const secrets: string[] = [];
  const reader = new SchemaReader(schema);
  const root = reader.applicable(schema === undefined ? [] : [schema]);
  // Below the root an unknown schema withholds each property and item;
  // a bare value at the root is withheld here.
  if (root.unknown && (typeof args !== 'object' || args === null)) {
    collect(args, secrets, 0);
    return { masked: SECRET_MASK, secrets };
  }
  const masked = mask(args, root, reader, secrets, 0);
  return { masked, secrets };
}

/**
 * `text` with every secret (at least 3 characters long) replaced by `***`,
 * longest first; and, of a long secret, a start of it cut short (a
 * validator quotes the first 40 characters of a value it refuses).
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  const sorted = [...new Set(secrets)]
    .filter((secret) => secret.length >= MIN_SCRUBBED_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const secret of sorted) {
    if (out.includes(secret)) out = out.split(secret).join(SECRET_MASK);
  }
  return scrubSecretStarts(out, sorted);
}

/**
 * How long a cut-short start of a secret must be to be masked: a quoted
 * value cut by a validator keeps 40 characters; shorter starts (a URL's
 * scheme and host inside a withheld credentials object) are common text.
 */
const MIN_SCRUBBED_START = 24;

/**
 * What may end a cut-short start: anything that cannot go on a token (an
 * ellipsis, a quote, escaped or not, a space, a comma, a bracket, the end
 * of the text); a letter, a digit or `-_+/=.:` would make it a longer word
 * that only begins like the secret.
 */
const CUT_END = /^(?:…|\.\.\.|\\?["'`]|[^A-Za-z0-9\-_+/=.:]|$)/;

/**
 * `text` with every start of `secret` (at least {@link MIN_SCRUBBED_START}
 * characters of it) masked where the text cuts it short: the run stops
 * where the secret goes on, at an ellipsis, a closing quote or the end.
 */
export function scrubSecretStarts(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length > MIN_SCRUBBED_START) out = scrubStarts(out, secret);
  }
  return out;
}

function scrubStarts(text: string, secret: string): string {
  const head = secret.slice(0, MIN_SCRUBBED_START);
  const parts: string[] = [];
  let from = 0;
  for (let at = text.indexOf(head); at !== -1; at = text.indexOf(head, at + 1)) {
    if (at < from) continue;
    let end = at + head.length;
    while (end < text.length && end - at < secret.length && text[end] === secret[end - at])
      end += 1;
    if (!CUT_END.test(text.slice(end, end + 3))) continue;
    parts.push(text.slice(from, at), SECRET_MASK);
    from = end;
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(from));
  return parts.join('');
}

const MAX_DEPTH = 64;

/**
 * Most schemas one lookup may take in (each `anyOf`, `oneOf` or `allOf`
 * branch, each `$ref` target, counted as reached, repeats included); past
 * it the value counts as secret. A schema of at most half as many JSON
 * values never reaches it (see {@link declaresSecretArguments}), so only a
 * huge or hostile schema pays for this bound, in masked values.
 */
const MAX_SCHEMA_STEPS = 20_000;

/** Combinators whose branches all describe the same value. */
const BRANCH_KEYWORDS = ['anyOf', 'oneOf', 'allOf'] as const;

/**
 * Keywords whose schema may apply to the same value, on a condition this
 * does not decide (`if`/`then`/`else`), or when a property is present
 * (`dependentSchemas`, and `dependencies` where a value is a schema):
 * their marks apply as a branch's do.
 */
const CONDITIONAL_KEYWORDS = ['if', 'then', 'else'] as const;
const DEPENDENT_KEYWORDS = ['dependentSchemas', 'dependencies'] as const;

/** Keywords that apply another schema, found by URI, to the same value. */
const REF_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef'] as const;

/** What {@link SchemaReader.resolve} answers for a reference it cannot follow. */
const UNRESOLVED = Symbol('unresolved');

/** A JSON array index as RFC 6901 writes it: no sign, no leading zero. */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** The schemas that apply to one value, and whether some could not be known. */
interface Applicable {
  /** `anyOf`, `oneOf`, `allOf` branches and `$ref` targets, each schema object once. */
  readonly branches: readonly Record<string, unknown>[];
  /**
   * A `$ref` did not resolve, or the step bound was hit: which schemas
   * apply is not known, so the value counts as secret.
   */
  readonly unknown: boolean;
  /** Some branch marks the value secret, or {@link unknown}: the value is withheld. */
  readonly secret: boolean;
  /** How many leading items the branches describe one by one (tuples). */
  readonly tuple: number;
  /** Lookups made below this value, by property or item key (items past the tuples share one). */
  readonly below: Map<string, Applicable>;
}

/** Reads one tool schema: resolves its local `$ref`s and finds the schemas that apply to a value. */
class SchemaReader {
  readonly #root: unknown;
  readonly #targets = new Map<string, unknown>();
  /**
   * Lookups made from one schema, by that schema: every property that only
   * `additionalProperties` describes, every value behind one `$ref`, shares one.
   */
  readonly #single = new Map<unknown, Applicable>();

  constructor(root: unknown) {
    this.#root = root;
  }

  /**
   * The schema a reference names: a JSON Pointer fragment (`#`,
   * `#/$defs/Creds`, `#/definitions/a~1b`, percent-encoded or not) into the
   * root schema. Anything else (another document, an `#anchor`, a pointer
   * to nothing or to a value that is no schema) is {@link UNRESOLVED}: no
   * base URI is known here, and a `$id` inside the schema is not honoured.
   */
  resolve(ref: unknown): unknown {
    if (typeof ref !== 'string' || !ref.startsWith('#')) return UNRESOLVED;
    // One lookup per reference and schema, however many values it applies to.
    if (this.#targets.has(ref)) return this.#targets.get(ref);
    const target = this.#walk(ref);
    this.#targets.set(ref, target);
    return target;
  }

  #walk(ref: string): unknown {
    let pointer: string;
    try {
      // RFC 6901 §6: the fragment is percent-decoded first, then split.
      pointer = decodeURIComponent(ref.slice(1));
    } catch {
      return UNRESOLVED;
    }
    if (pointer !== '' && !pointer.startsWith('/')) return UNRESOLVED;
    let node = this.#root;
    if (pointer !== '') {
      for (const raw of pointer.slice(1).split('/')) {
        const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
        if (Array.isArray(node)) {
          if (!ARRAY_INDEX.test(segment) || Number(segment) >= node.length) return UNRESOLVED;
          node = node[Number(segment)];
        } else if (isObject(node) && Object.hasOwn(node, segment)) {
          node = node[segment];
        } else return UNRESOLVED;
      }
    }
    return isObject(node) || typeof node === 'boolean' ? node : UNRESOLVED;
  }

  /**
   * The schemas that apply to a value described by `schemas`: themselves,
   * their `anyOf`, `oneOf` and `allOf` branches and `$ref` targets, at any
   * depth; each schema object once, so a cycle ends and a diamond costs
   * once. At most {@link MAX_SCHEMA_STEPS} schemas are reached.
   */
  applicable(schemas: readonly unknown[]): Applicable {
    if (schemas.length > 1) return this.#lookUp(schemas);
    const [schema] = schemas;
    let known = this.#single.get(schema);
    if (known === undefined) {
      known = this.#lookUp(schemas);
      this.#single.set(schema, known);
    }
    return known;
  }

  #lookUp(schemas: readonly unknown[]): Applicable {
    const found: Record<string, unknown>[] = [];
    const seen = new Set<object>();
    const queue: unknown[] = [];
    const below = new Map<string, Applicable>();
    let unknown = false;
    const reach = (schema: unknown): void => {
      if (queue.length >= MAX_SCHEMA_STEPS) unknown = true;
      else queue.push(schema);
    };
    for (const schema of schemas) reach(schema);
    // `queue` only grows: its length counts the steps, repeats included.
    for (let next = 0; next < queue.length && !unknown; next += 1) {
      const node = queue[next];
      // A boolean schema marks nothing; another value is no schema.
      if (!isObject(node) || seen.has(node)) continue;
      seen.add(node);
      found.push(node);
      for (const keyword of BRANCH_KEYWORDS) {
        const list = node[keyword];
        if (!Array.isArray(list)) continue;
        for (const branch of list) {
          reach(branch);
          if (unknown) break;
        }
      }
      for (const keyword of CONDITIONAL_KEYWORDS) {
        if (Object.hasOwn(node, keyword)) reach(node[keyword]);
      }
      for (const keyword of DEPENDENT_KEYWORDS) {
        const map = node[keyword];
        if (!isObject(map)) continue;
        // `dependencies` also takes lists of names, which are no schemas and mark nothing.
        for (const name in map) if (Object.hasOwn(map, name)) reach(map[name]);
      }
      for (const keyword of REF_KEYWORDS) {
        if (!Object.hasOwn(node, keyword)) continue;
        const target = this.resolve(node[keyword]);
        if (target === UNRESOLVED) unknown = true;
        else reach(target);
      }
    }
    const tuple = found.reduce((most, branch) => Math.max(most, tupleLength(branch)), 0);
    const secret = unknown || found.some(marksSecret);
    return { branches: found, unknown, secret, tuple, below };
  }

  /** What applies to property `key` of a value that `parent` applies to. */
  property(parent: Applicable, key: string): Applicable {
    return this.#below(parent, `p${key}`, () => propertySchemas(parent.branches, key));
  }

  /** What applies to item `index` of a list that `parent` applies to. */
  item(parent: Applicable, index: number): Applicable {
    // Items past every tuple all have the same schemas: one lookup serves them all.
    const key = index < parent.tuple ? `i${index}` : 'i*';
    return this.#below(parent, key, () => itemSchemas(parent.branches, index));
  }

  #below(parent: Applicable, key: string, schemas: () => unknown[]): Applicable {
    let found = parent.below.get(key);
    if (found === undefined) {
      // Under a value whose schemas are not known, nothing below is known either.
      found = parent.unknown
        ? { branches: [], unknown: true, secret: true, tuple: 0, below: new Map() }
        : this.applicable(schemas());
      parent.below.set(key, found);
    }
    return found;
  }
}

/** Whether the schema itself (not its branches) says `x-secret` or `writeOnly`. */
function marksSecret(schema: Record<string, unknown>): boolean {
  return schema['x-secret'] === true || schema['writeOnly'] === true;
}

function mask(
  value: unknown,
  applicable: Applicable,
  reader: SchemaReader,
  secrets: string[],
  depth: number,
): unknown {
  if (depth > MAX_DEPTH) return SECRET_MASK;
  // Which branch a value matches is not decided here: every branch's marks apply.
  const withhold = (item: unknown): string => {
    collect(item, secrets, 0);
    return SECRET_MASK;
  };
  if (Array.isArray(value)) {
    return value.map((item: unknown, index) => {
      const sub = reader.item(applicable, index);
      // An item marked secret (a tuple's, or every item's) is withheld like a property.
      return sub.secret ? withhold(item) : mask(item, sub, reader, secrets, depth + 1);
    });
  }
  if (!isObject(value)) return value;
  // fromEntries defines own properties: an argument named `__proto__` stays data.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]): [string, unknown] => {
      const sub = reader.property(applicable, key);
      if (isSecretArgumentName(key) || sub.secret) return [key, withhold(item)];
      return [key, mask(item, sub, reader, secrets, depth + 1)];
    }),
  );
}

/**
 * The schemas of property `key` in each branch that has one (its own, else
 * `additionalProperties`), and every `patternProperties` schema of the
 * branch: whether a server's pattern matches the key is not decided here
 * (running it is the validator's business, on a linear engine), so each
 * one's marks apply, which withholds more rather than less.
 */
function propertySchemas(branches: readonly Record<string, unknown>[], key: string): unknown[] {
  const found: unknown[] = [];
  for (const branch of branches) {
    const properties = branch['properties'];
    if (isObject(properties) && Object.hasOwn(properties, key)) found.push(properties[key]);
    else if (branch['additionalProperties'] !== undefined) {
      found.push(branch['additionalProperties']);
    }
    const patterns = branch['patternProperties'];
    if (isObject(patterns)) {
      for (const pattern in patterns)
        if (Object.hasOwn(patterns, pattern)) found.push(patterns[pattern]);
    }
  }
  return found;
}

/** How many items a branch describes one by one (`prefixItems`, or an `items` array). */
function tupleLength(branch: Record<string, unknown>): number {
  const { prefixItems, items } = branch;
  return Math.max(
    Array.isArray(prefixItems) ? prefixItems.length : 0,
    Array.isArray(items) ? items.length : 0,
  );
}

/**
 * The schema of item `index` in each branch that has one: from a tuple
 * (`prefixItems`, or an `items` array as before JSON Schema 2020-12), else
 * the schema of the other items (`items`, `additionalItems`).
 */
function itemSchemas(branches: readonly Record<string, unknown>[], index: number): unknown[] {
  const found: unknown[] = [];
  for (const branch of branches) {
    const { prefixItems, items, additionalItems } = branch;
    if (Array.isArray(prefixItems) && index < prefixItems.length) found.push(prefixItems[index]);
    else if (Array.isArray(items)) {
      found.push(index < items.length ? items[index] : additionalItems);
    } else found.push(items);
  }
  return found.filter((schema) => schema !== undefined);
}

function collect(value: unknown, secrets: string[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (typeof value === 'string') secrets.push(value);
  else if (typeof value === 'number' || typeof value === 'bigint') secrets.push(String(value));
  else if (Array.isArray(value)) for (const item of value) collect(item, secrets, depth + 1);
  else if (isObject(value))
    for (const item of Object.values(value)) collect(item, secrets, depth + 1);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
