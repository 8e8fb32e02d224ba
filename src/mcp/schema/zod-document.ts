/**
 * The copy of a schema that zod's `fromJSONSchema` is given. Only keywords
 * the converter reads faithfully survive (annotations, `default` and `format`
 * are dropped), and the shapes it mishandles are rewritten to equivalent ones
 * it handles. Used only for schemas whose analysis found no zod obstacle.
 */
import type { SchemaAnalysis, SchemaNode } from './analyze.js';
import { hasJsonType, isJsonObject, type JsonObject, type JsonValue } from './json.js';

/** Keywords copied as they are (values already checked by the analysis). */
const PLAIN_KEYWORDS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'required',
] as const;

type TypeSpec = string | readonly string[];

/**
 * Builds the zod-path document. What changes, and why each keeps verdicts:
 * - every `$ref` points at `#` or at `#/$defs/sN`, a copy of its resolved
 *   target: zod resolves only one-segment `$defs` names, and would silently
 *   read `#/$defs/a/properties/b` as `#/$defs/a`;
 * - `default` is dropped: zod fills it in, which would let a missing
 *   *required* property pass, and we send arguments as the model wrote them;
 * - an untyped top level gets `"type": "object"` (arguments are always an
 *   object), and an untyped composition branch gets its parent's `type` (it
 *   only ever sees values of that type);
 * - `enum`/`const` values of the wrong `type` are removed: zod reads `enum`
 *   and ignores `type`;
 * - a `required` name without a property schema gets the schema
 *   `additionalProperties` gives it: zod ignores required names it has no
 *   schema for;
 * - an array schema without `items` gets `"items": true`: zod drops
 *   `minItems`/`maxItems` otherwise.
 */
export function buildZodDocument(analysis: SchemaAnalysis): JsonObject {
  return new ZodDocumentBuilder(analysis).build();
}

class ZodDocumentBuilder {
  private readonly names = new Map<JsonObject, string>();
  private readonly pending: JsonObject[] = [];

  constructor(private readonly analysis: SchemaAnalysis) {}

  build(): JsonObject {
    const root = this.copy(this.analysis.document, 'object');
    if (!isJsonObject(root)) return { type: 'object' };
    const defs: JsonObject = {};
    for (let target = this.pending.shift(); target !== undefined; target = this.pending.shift()) {
      defs[this.names.get(target) ?? ''] = this.copy(target, undefined);
    }
    guardRequired(root, root, defs);
    for (const def of Object.values(defs)) guardRequired(def, root, defs);
    // Pin the dialect: the copy uses 2020-12 spellings whatever the server wrote.
    root['$schema'] = 'https://json-schema.org/draft/2020-12/schema';
    if (Object.keys(defs).length > 0) root['$defs'] = defs;
    return root;
  }

  private copy(node: SchemaNode, inherited: TypeSpec | undefined): JsonValue {
    if (typeof node === 'boolean') return node;
    if (node['$ref'] !== undefined) return this.reference(node);
    const out: JsonObject = {};
    const type = (node['type'] as TypeSpec | undefined) ?? inherited;
    if (type !== undefined) out['type'] = typeof type === 'string' ? type : [...type];
    const listed = node['enum'] ?? (node['const'] === undefined ? undefined : [node['const']]);
    if (Array.isArray(listed)) {
      out['enum'] =
        type === undefined
          ? listed
          : listed.filter((value) =>
              (typeof type === 'string' ? [type] : type).some((name) => hasJsonType(value, name)),
            );
    } else {
      this.copyAssertions(node, out, type);
    }
    for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
      const branches = node[keyword];
      if (Array.isArray(branches)) {
        out[keyword] = branches.map((branch) => this.copy(branch as SchemaNode, type));
      }
    }
    return out;
  }

  private copyAssertions(node: JsonObject, out: JsonObject, type: TypeSpec | undefined): void {
    for (const keyword of PLAIN_KEYWORDS) {
      const value = node[keyword];
      if (value !== undefined) out[keyword] = value;
    }
    const additional = node['additionalProperties'];
    const additionalCopy =
      additional === undefined ? undefined : this.copy(additional as SchemaNode, undefined);
    if (additionalCopy !== undefined) out['additionalProperties'] = additionalCopy;
    const properties = node['properties'];
    const required = node['required'];
    if (isJsonObject(properties) || Array.isArray(required)) {
      const shape: JsonObject = {};
      if (isJsonObject(properties)) {
        for (const [name, sub] of Object.entries(properties)) {
          shape[name] = this.copy(sub as SchemaNode, undefined);
        }
      }
      if (Array.isArray(required)) {
        for (const name of required) {
          if (typeof name === 'string' && !Object.hasOwn(shape, name))
            shape[name] = additionalCopy ?? true;
        }
      }
      out['properties'] = shape;
    }
    const items = node['items'];
    const prefixItems = node['prefixItems'];
    if (Array.isArray(prefixItems)) {
      out['prefixItems'] = prefixItems.map((item) => this.copy(item as SchemaNode, undefined));
    }
    if (items !== undefined) {
      out['items'] = this.copy(items as SchemaNode, undefined);
    } else if (prefixItems === undefined && includesType(type, 'array')) {
      out['items'] = true;
    }
  }

  private reference(node: JsonObject): JsonValue {
    const target = this.analysis.refTargets.get(node);
    if (target === undefined) throw new Error(`unresolved $ref ${JSON.stringify(node['$ref'])}`);
    if (typeof target === 'boolean') return target;
    if (target === this.analysis.document) return { $ref: '#' };
    let name = this.names.get(target);
    if (name === undefined) {
      name = `s${this.names.size}`;
      this.names.set(target, name);
      this.pending.push(target);
    }
    return { $ref: `#/$defs/${name}` };
  }
}

/** Accepts any JSON value, but not a missing one. */
const ANY_PRESENT_VALUE: JsonObject = {
  type: ['string', 'number', 'boolean', 'null', 'array', 'object'],
};

/**
 * Wraps each required property whose schema could accept "nothing" as
 * `allOf: [any present value, schema]`. zod treats a property as optional when
 * its schema is "optional-in" — a union of `true` and a guarded object, for
 * one — and then lets a missing required property pass. Found by the
 * fidelity property test.
 */
function guardRequired(node: JsonValue, root: JsonObject, defs: JsonObject): void {
  if (Array.isArray(node)) {
    for (const item of node) guardRequired(item, root, defs);
    return;
  }
  if (!isJsonObject(node)) return;
  const properties = node['properties'];
  const required = node['required'];
  if (isJsonObject(properties) && Array.isArray(required)) {
    for (const name of required) {
      if (typeof name !== 'string') continue;
      const sub = properties[name];
      if (sub !== undefined && acceptsNothing(sub, root, defs, new Set())) {
        properties[name] = { allOf: [ANY_PRESENT_VALUE, sub] };
      }
    }
  }
  const prefixItems = node['prefixItems'];
  const minItems = node['minItems'];
  if (Array.isArray(prefixItems) && typeof minItems === 'number') {
    // Likewise a tuple position below minItems: zod fills a missing one with
    // `undefined` and then counts the filled-in array against minItems.
    for (let i = 0; i < Math.min(minItems, prefixItems.length); i++) {
      const item = prefixItems[i];
      if (item !== undefined && acceptsNothing(item, root, defs, new Set())) {
        prefixItems[i] = { allOf: [ANY_PRESENT_VALUE, item] };
      }
    }
  }
  for (const [key, value] of Object.entries(node)) {
    // `enum` holds data, and `$defs` are guarded by the caller, once each.
    if (key !== 'enum' && key !== '$defs' && typeof value === 'object')
      guardRequired(value, root, defs);
  }
}

/** Whether zod's conversion of `node` could accept `undefined`. */
function acceptsNothing(
  node: JsonValue,
  root: JsonObject,
  defs: JsonObject,
  seen: Set<JsonValue>,
): boolean {
  if (typeof node === 'boolean') return node;
  if (!isJsonObject(node) || seen.has(node)) return false;
  seen.add(node);
  const ref = node['$ref'];
  if (typeof ref === 'string') {
    const target = ref === '#' ? root : defs[ref.slice('#/$defs/'.length)];
    return target !== undefined && acceptsNothing(target, root, defs, seen);
  }
  if (node['type'] !== undefined || node['enum'] !== undefined) return false;
  const anyOf = node['anyOf'] ?? node['oneOf'];
  if (Array.isArray(anyOf)) return anyOf.some((branch) => acceptsNothing(branch, root, defs, seen));
  const allOf = node['allOf'];
  if (Array.isArray(allOf))
    return allOf.every((branch) => acceptsNothing(branch, root, defs, seen));
  return true;
}

function includesType(type: TypeSpec | undefined, name: string): boolean {
  return type !== undefined && (typeof type === 'string' ? type === name : type.includes(name));
}
