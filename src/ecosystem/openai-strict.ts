/**
 * Whether a tool's JSON Schema qualifies for OpenAI structured outputs
 * (`strict: true` function calling) exactly as it is. The schema is never
 * rewritten to qualify: a tool whose schema does not is sent without
 * `strict`, and these issues say why.
 *
 * The rules follow OpenAI's "Supported schemas" list: every object has
 * `additionalProperties: false` and lists all its properties in `required`
 * (optional fields are written as a `null` type instead); only the keywords
 * below appear; `anyOf` is not the root; `$ref` is `#` or names an entry
 * of the root's `$defs` or `definitions` (the places checked as schemas of
 * their own); `additionalProperties`, wherever it appears, is `false`; at
 * most 10 levels of nesting, 5,000 properties and 1,000 enum values.
 * Keywords outside the list (`default`, `minLength`, `oneOf`, `allOf`,
 * `not`, `if`, ...) make a schema ineligible, even where OpenAI might
 * ignore them, because strict mode would then promise something the schema
 * does not say.
 */

const TYPE_NAMES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const STRING_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);
const COMMON_KEYWORDS = new Set([
  'type',
  'description',
  'title',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
]);
const KEYWORDS_BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  object: ['properties', 'required', 'additionalProperties'],
  array: ['items', 'minItems', 'maxItems'],
  string: ['pattern', 'format'],
  number: ['multipleOf', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  integer: ['multipleOf', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
};
const ALL_TYPED_KEYWORDS = new Set(Object.values(KEYWORDS_BY_TYPE).flat());

/** Most nesting levels OpenAI accepts in a strict schema. */
export const OPENAI_STRICT_MAX_DEPTH = 10;
/** Most object properties, counted over the whole schema. */
export const OPENAI_STRICT_MAX_PROPERTIES = 5_000;
/** Most enum values, counted over the whole schema. */
export const OPENAI_STRICT_MAX_ENUM_VALUES = 1_000;
/** How many issues are listed before the check stops. */
const MAX_ISSUES = 10;

type JsonObject = Record<string, unknown>;

/**
 * Why `schema` cannot be sent with `strict: true`, as readable issues with
 * the JSON Pointer of each place; empty when it qualifies as it is.
 *
 * @example
 * openAIStrictIssues({ type: 'object', properties: { a: { type: 'string' } } });
 * // ['#: an object needs "additionalProperties": false', '#: "required" must list every property (missing: a)']
 */
export function openAIStrictIssues(schema: unknown): string[] {
  const check = new StrictCheck();
  check.root(schema);
  return check.issues;
}

class StrictCheck {
  readonly issues: string[] = [];
  #properties = 0;
  #enumValues = 0;
  #root: JsonObject = {};

  root(schema: unknown): void {
    if (!isObject(schema)) {
      this.add('#', 'the schema must be a JSON object');
      return;
    }
    this.#root = schema;
    if (schema['type'] !== 'object') this.add('#', 'the root must have "type": "object"');
    if (schema['anyOf'] !== undefined) this.add('#', 'the root must not be "anyOf"');
    this.node(schema, '#', 1, true);
    if (this.#properties > OPENAI_STRICT_MAX_PROPERTIES) {
      this.add('#', `more than ${OPENAI_STRICT_MAX_PROPERTIES} properties in total`);
    }
    if (this.#enumValues > OPENAI_STRICT_MAX_ENUM_VALUES) {
      this.add('#', `more than ${OPENAI_STRICT_MAX_ENUM_VALUES} enum values in total`);
    }
  }

  private add(pointer: string, message: string): void {
    if (this.issues.length < MAX_ISSUES) this.issues.push(`${pointer}: ${message}`);
  }

  private node(node: unknown, pointer: string, depth: number, isRoot = false): void {
    if (this.issues.length >= MAX_ISSUES) return;
    if (!isObject(node)) {
      this.add(pointer, 'boolean schemas are not supported');
      return;
    }
    if (depth > OPENAI_STRICT_MAX_DEPTH) {
      this.add(pointer, `nested deeper than ${OPENAI_STRICT_MAX_DEPTH} levels`);
      return;
    }
    const types = this.types(node, pointer);
    const allowed = new Set(COMMON_KEYWORDS);
    if (isRoot) allowed.add('$schema');
    // An untyped node (a `$ref`, an `anyOf`, an `enum`) may carry any type's keywords it implies.
    const typeKeys = types.length > 0 ? types : Object.keys(KEYWORDS_BY_TYPE);
    for (const type of typeKeys)
      for (const keyword of KEYWORDS_BY_TYPE[type] ?? []) allowed.add(keyword);
    for (const keyword of Object.keys(node)) {
      if (allowed.has(keyword)) continue;
      this.add(
        pointer,
        ALL_TYPED_KEYWORDS.has(keyword)
          ? `"${keyword}" does not apply to type ${types.join('|')}`
          : `"${keyword}" is not supported in strict mode`,
      );
    }

    const ref = node['$ref'];
    if (ref !== undefined) {
      if (typeof ref !== 'string' || !(ref === '#' || ref.startsWith('#/'))) {
        this.add(pointer, '"$ref" must point inside the schema');
      } else if (!this.isDefinition(ref)) {
        // Only the root and the definitions are checked as schemas in their own right: a
        // pointer elsewhere (into `enum` data, or inside a schema) may reach keywords unchecked.
        this.add(
          pointer,
          '"$ref" must be "#" or name an entry of the root "$defs" or "definitions"',
        );
      }
      const siblings = Object.keys(node).filter(
        (key) => key !== '$ref' && key !== 'description' && key !== 'title',
      );
      if (siblings.length > 0) {
        this.add(pointer, `"$ref" must not have sibling keywords (${siblings.join(', ')})`);
      }
    }

    const format = node['format'];
    if (format !== undefined && (typeof format !== 'string' || !STRING_FORMATS.has(format))) {
      this.add(
        pointer,
        `"format": ${JSON.stringify(format)} is not one of ${[...STRING_FORMATS].join(', ')}`,
      );
    }
    const enumValues = node['enum'];
    if (Array.isArray(enumValues)) this.#enumValues += enumValues.length;

    const additional = node['additionalProperties'];
    if (types.includes('object') || node['properties'] !== undefined) {
      this.object(node, pointer, depth);
    } else if (
      additional !== undefined &&
      additional !== false &&
      allowed.has('additionalProperties')
    ) {
      // An untyped node still constrains object values: strict mode allows no extra properties.
      this.add(pointer, '"additionalProperties" must be false');
    }
    // Refused already, but what it holds is checked too, so every issue is listed.
    if (isObject(additional)) {
      this.node(additional, `${pointer}/additionalProperties`, depth + 1);
    }
    if (node['items'] !== undefined) {
      if (Array.isArray(node['items']))
        this.add(pointer, 'tuple "items" (an array) is not supported');
      else this.node(node['items'], `${pointer}/items`, depth + 1);
    }
    const anyOf = node['anyOf'];
    if (anyOf !== undefined) {
      if (!Array.isArray(anyOf)) this.add(pointer, '"anyOf" must be an array');
      else
        anyOf.forEach((branch, index) => this.node(branch, `${pointer}/anyOf/${index}`, depth + 1));
    }
    for (const key of ['$defs', 'definitions'] as const) {
      const defs = node[key];
      if (defs === undefined) continue;
      if (!isObject(defs)) {
        this.add(pointer, `"${key}" must be an object`);
        continue;
      }
      for (const [name, sub] of Object.entries(defs)) {
        this.node(sub, `${pointer}/${key}/${escape(name)}`, depth);
      }
    }
  }

  /**
   * Whether `ref` is `#` or `#/$defs/<name>` / `#/definitions/<name>` (a
   * JSON Pointer, percent-encoded or not) naming an entry of the root that
   * is a schema object: those, and only those, {@link node} checks.
   */
  private isDefinition(ref: string): boolean {
    if (ref === '#') return true;
    let pointer: string;
    try {
      pointer = decodeURIComponent(ref.slice(1));
    } catch {
      return false;
    }
    const segments = pointer.split('/');
    if (segments.length !== 3 || segments[0] !== '') return false;
    const [, key = '', raw = ''] = segments;
    if (key !== '$defs' && key !== 'definitions') return false;
    const defs = this.#root[key];
    const name = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    return isObject(defs) && Object.hasOwn(defs, name) && isObject(defs[name]);
  }

  private types(node: JsonObject, pointer: string): string[] {
    const type = node['type'];
    if (type === undefined) return [];
    const names = Array.isArray(type) ? type : [type];
    const valid = names.filter(
      (name): name is string => typeof name === 'string' && TYPE_NAMES.has(name),
    );
    if (valid.length !== names.length || valid.length === 0) {
      this.add(pointer, `"type" ${JSON.stringify(type)} is not a list of JSON types`);
    }
    return valid;
  }

  private object(node: JsonObject, pointer: string, depth: number): void {
    if (node['additionalProperties'] !== false) {
      this.add(pointer, 'an object needs "additionalProperties": false');
    }
    const properties = node['properties'] ?? {};
    if (!isObject(properties)) {
      this.add(pointer, '"properties" must be an object');
      return;
    }
    const names = Object.keys(properties);
    this.#properties += names.length;
    const required = node['required'] ?? [];
    const listed = new Set(Array.isArray(required) ? required : []);
    const missing = names.filter((name) => !listed.has(name));
    if (!Array.isArray(required) || missing.length > 0) {
      this.add(
        pointer,
        `"required" must list every property${missing.length > 0 ? ` (missing: ${missing.join(', ')})` : ''}`,
      );
    }
    for (const [name, sub] of Object.entries(properties)) {
      this.node(sub, `${pointer}/properties/${escape(name)}`, depth + 1);
    }
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
