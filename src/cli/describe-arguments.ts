/**
 * A readable summary of a tool's top-level arguments, from its JSON Schema,
 * for `inspect`.
 */

/** One argument of a tool. */
export interface ArgumentSummary {
  readonly name: string;
  /** e.g. `string`, `number[]`, `"a" | "b"`, `object`. */
  readonly type: string;
  readonly required: boolean;
  readonly description?: string;
  /** The schema's `default`, as JSON. */
  readonly default?: string;
}

/** The top-level properties of `schema`, in schema order. */
export function describeArguments(schema: unknown): ArgumentSummary[] {
  if (!isObject(schema) || !isObject(schema['properties'])) return [];
  const required = new Set(Array.isArray(schema['required']) ? schema['required'] : []);
  return Object.entries(schema['properties']).map(([name, sub]) => {
    const summary: {
      name: string;
      type: string;
      required: boolean;
      description?: string;
      default?: string;
    } = { name, type: typeOf(sub, 0), required: required.has(name) };
    if (isObject(sub) && typeof sub['description'] === 'string') {
      summary.description = sub['description'].replace(/\s+/g, ' ').trim();
    }
    if (isObject(sub) && sub['default'] !== undefined) {
      summary.default = shown(sub['default']);
    }
    return summary;
  });
}

function typeOf(schema: unknown, depth: number): string {
  if (schema === true) return 'any';
  if (schema === false) return 'never';
  if (!isObject(schema) || depth > 4) return 'any';
  if (schema['const'] !== undefined) return shown(schema['const']);
  if (Array.isArray(schema['enum'])) {
    return schema['enum'].map(shown).join(' | ');
  }
  if (typeof schema['$ref'] === 'string') return schema['$ref'].split('/').pop() ?? 'any';
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches))
      return branches.map((branch) => typeOf(branch, depth + 1)).join(' | ');
  }
  const type = schema['type'];
  const types = Array.isArray(type) ? type.map(String) : typeof type === 'string' ? [type] : [];
  if (types.length === 0) return isObject(schema['properties']) ? 'object' : 'any';
  return types
    .map((name) => (name === 'array' ? `${wrap(typeOf(schema['items'], depth + 1))}[]` : name))
    .join(' | ');
}

/**
 * `value` as JSON, but a number JSON cannot hold (1e400 parses as
 * Infinity) as itself: `JSON.stringify` would show it as `null`.
 */
function shown(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return JSON.stringify(value);
}

function wrap(type: string): string {
  return type.includes(' | ') ? `(${type})` : type;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
