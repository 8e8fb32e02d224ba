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
import { isJsonRecord } from '../core/json.js';
import {
  type Applicable,
  MAX_SCHEMA_STEPS,
  marksSecret,
  REF_KEYWORDS,
  SchemaReader,
  UNRESOLVED,
} from './secret-schema.js';
import { SECRET_MASK } from './secret-text.js';
import type { JsonSchema } from './tool.js';

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
    if (isJsonRecord(properties) && Object.keys(properties).some(isSecretArgumentName)) return true;
    const unresolved = REF_KEYWORDS.some(
      (keyword) => Object.hasOwn(object, keyword) && reader.resolve(object[keyword]) === UNRESOLVED,
    );
    if (unresolved) return true;
    return Object.values(object).some((value) => declares(value, depth + 1));
  };
  return declares(schema, 0);
}

/**
 * The values of a call's secret arguments, as {@link maskSecretArguments}
 * finds them, without masking the call: none without looking further when
 * the schema declares none (`declared`, from {@link declaresSecretArguments},
 * worked out once per schema) and no key of `args` names one.
 */
export function secretArgumentValues(
  args: unknown,
  schema: unknown,
  declared: boolean,
): readonly string[] {
  if (!declared && !namesSecretArgument(args)) return [];
  return maskSecretArguments(args, schema as JsonSchema).secrets;
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

const MAX_DEPTH = 64;

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
  if (!isJsonRecord(value)) return value;
  // fromEntries defines own properties: an argument named `__proto__` stays data.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]): [string, unknown] => {
      const sub = reader.property(applicable, key);
      if (isSecretArgumentName(key) || sub.secret) return [key, withhold(item)];
      return [key, mask(item, sub, reader, secrets, depth + 1)];
    }),
  );
}

function collect(value: unknown, secrets: string[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (typeof value === 'string') secrets.push(value);
  else if (typeof value === 'number' || typeof value === 'bigint') secrets.push(String(value));
  else if (Array.isArray(value)) for (const item of value) collect(item, secrets, depth + 1);
  else if (isJsonRecord(value))
    for (const item of Object.values(value)) collect(item, secrets, depth + 1);
}
