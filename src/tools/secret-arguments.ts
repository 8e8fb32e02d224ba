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
 * `$ref` is not followed, so mark such a property by name or on the
 * property itself.
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
  const words = name
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
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
 * `writeOnly`), on itself or on any branch of its `anyOf`, `oneOf` or
 * `allOf`, at any depth: a value that may be secret is treated as secret.
 */
export function isSecretSchema(schema: unknown): boolean {
  return branchesOf(schema).some(
    (branch) => branch['x-secret'] === true || branch['writeOnly'] === true,
  );
}

/**
 * Whether `schema` may make any argument secret by these rules: some
 * subschema, anywhere, is secret to {@link isSecretSchema}, or some
 * `properties` has a name secret to {@link isSecretArgumentName}. Every
 * subschema is looked at, not only those masking follows: a schema wrongly
 * taken to have secrets costs a search that finds none, the other way
 * round would publish them. A property the schema does not declare is not
 * seen: a schema that mentions no secret is taken to have none.
 */
export function declaresSecretArguments(schema: unknown, depth = 0): boolean {
  // Deeper than any real schema: taken to have secrets rather than looked at further.
  if (depth > 2 * MAX_DEPTH) return true;
  if (typeof schema !== 'object' || schema === null) return false;
  if (Array.isArray(schema)) {
    return schema.some((item) => declaresSecretArguments(item, depth + 1));
  }
  if (isSecretSchema(schema)) return true;
  const { properties } = schema as Record<string, unknown>;
  if (isObject(properties) && Object.keys(properties).some(isSecretArgumentName)) return true;
  return Object.values(schema).some((value) => declaresSecretArguments(value, depth + 1));
}

/** Arguments with every secret withheld, and the withheld values (for scrubbing text). */
export interface MaskedArguments {
  readonly masked: unknown;
  /** Every string (and number, as text) found inside withheld values. */
  readonly secrets: readonly string[];
}

/** Replaces every secret argument's value by `***`; the input is not changed. */
export function maskSecretArguments(args: unknown, schema?: JsonSchema): MaskedArguments {
  const secrets: string[] = [];
  const masked = mask(args, schema, secrets, 0);
  return { masked, secrets };
}

/** `text` with every secret (at least 3 characters long) replaced by `***`, longest first. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  const sorted = [...new Set(secrets)]
    .filter((secret) => secret.length >= MIN_SCRUBBED_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const secret of sorted) {
    if (out.includes(secret)) out = out.split(secret).join(SECRET_MASK);
  }
  return out;
}

const MAX_DEPTH = 64;

/** Combinators whose branches all describe the same value. */
const BRANCH_KEYWORDS = ['anyOf', 'oneOf', 'allOf'] as const;

function mask(value: unknown, schema: unknown, secrets: string[], depth: number): unknown {
  if (depth > MAX_DEPTH) return SECRET_MASK;
  // Which branch a value matches is not decided here: every branch's marks apply.
  const branches = branchesOf(schema);
  if (Array.isArray(value)) {
    return value.map((item: unknown, index) => {
      const sub = itemSchema(branches, index);
      // An item marked secret (a tuple's, or every item's) is withheld like a property.
      if (!isSecretSchema(sub)) return mask(item, sub, secrets, depth + 1);
      collect(item, secrets, 0);
      return SECRET_MASK;
    });
  }
  if (!isObject(value)) return value;
  // fromEntries defines own properties: an argument named `__proto__` stays data.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]): [string, unknown] => {
      const sub = propertySchema(branches, key);
      if (isSecretArgumentName(key) || isSecretSchema(sub)) {
        collect(item, secrets, 0);
        return [key, SECRET_MASK];
      }
      return [key, mask(item, sub, secrets, depth + 1)];
    }),
  );
}

/**
 * `schema` and the schemas of its `anyOf`, `oneOf` and `allOf` branches, at
 * any depth up to {@link MAX_DEPTH}; objects only.
 */
function branchesOf(schema: unknown): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const visit = (node: unknown, depth: number): void => {
    if (!isObject(node) || depth > MAX_DEPTH) return;
    found.push(node);
    for (const keyword of BRANCH_KEYWORDS) {
      const list = node[keyword];
      if (Array.isArray(list)) for (const branch of list) visit(branch, depth + 1);
    }
  };
  visit(schema, 0);
  return found;
}

/** The schema of property `key` in each branch that has one (its own, else `additionalProperties`), as one. */
function propertySchema(branches: readonly Record<string, unknown>[], key: string): unknown {
  const found: unknown[] = [];
  for (const branch of branches) {
    const properties = branch['properties'];
    if (isObject(properties) && Object.hasOwn(properties, key)) found.push(properties[key]);
    else if (branch['additionalProperties'] !== undefined) {
      found.push(branch['additionalProperties']);
    }
  }
  return oneSchema(found);
}

/**
 * The schema of item `index` in each branch that has one, as one: from a
 * tuple (`prefixItems`, or an `items` array as before JSON Schema 2020-12),
 * else the schema of the other items (`items`, `additionalItems`).
 */
function itemSchema(branches: readonly Record<string, unknown>[], index: number): unknown {
  const found: unknown[] = [];
  for (const branch of branches) {
    const { prefixItems, items, additionalItems } = branch;
    if (Array.isArray(prefixItems) && index < prefixItems.length) found.push(prefixItems[index]);
    else if (Array.isArray(items)) {
      found.push(index < items.length ? items[index] : additionalItems);
    } else found.push(items);
  }
  return oneSchema(found.filter((schema) => schema !== undefined));
}

/** Several schemas of one value as one: their `anyOf`, which {@link branchesOf} opens again. */
function oneSchema(schemas: readonly unknown[]): unknown {
  if (schemas.length <= 1) return schemas[0];
  return { anyOf: schemas };
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
