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
 * `additionalProperties` and `items`; a `$ref` is not followed, so mark
 * such a property by name or on the property itself.
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

/** Whether a property schema marks its value secret (`x-secret` or `writeOnly`). */
export function isSecretSchema(schema: unknown): boolean {
  return isObject(schema) && (schema['x-secret'] === true || schema['writeOnly'] === true);
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

function mask(value: unknown, schema: unknown, secrets: string[], depth: number): unknown {
  if (depth > MAX_DEPTH) return SECRET_MASK;
  if (Array.isArray(value)) {
    const items = isObject(schema) ? schema['items'] : undefined;
    return value.map((item: unknown, index) =>
      mask(item, Array.isArray(items) ? items[index] : items, secrets, depth + 1),
    );
  }
  if (!isObject(value)) return value;
  const properties = isObject(schema) && isObject(schema['properties']) ? schema['properties'] : {};
  const additional = isObject(schema) ? schema['additionalProperties'] : undefined;
  // fromEntries defines own properties: an argument named `__proto__` stays data.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]): [string, unknown] => {
      const sub = Object.hasOwn(properties, key) ? properties[key] : additional;
      if (isSecretArgumentName(key) || isSecretSchema(sub)) {
        collect(item, secrets, 0);
        return [key, SECRET_MASK];
      }
      return [key, mask(item, sub, secrets, depth + 1)];
    }),
  );
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
