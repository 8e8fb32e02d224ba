/**
 * Deterministic, realistic MCP tool schemas for the conversion and connect
 * benchmarks: nested objects, arrays of objects, enums, `$defs`/`$ref`,
 * descriptions, bounds — about 2.6 KB of JSON each on average — and one
 * valid argument object per schema, to time the first validation.
 */
import type { Tool as McpToolDescription } from '@modelcontextprotocol/sdk/types.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** A tool as a server lists it, and arguments its schema accepts. */
export interface GeneratedTool {
  readonly tool: McpToolDescription;
  readonly validArguments: Record<string, unknown>;
}

/** mulberry32: a small seeded PRNG, so every run sees the same schemas. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const WORDS = [
  'account',
  'branch',
  'commit',
  'customer',
  'dataset',
  'deadline',
  'filter',
  'issue',
  'label',
  'limit',
  'locale',
  'message',
  'milestone',
  'owner',
  'page',
  'priority',
  'project',
  'query',
  'region',
  'repository',
  'review',
  'schedule',
  'status',
  'tag',
  'team',
  'template',
  'ticket',
  'timezone',
  'title',
  'user',
  'version',
  'workspace',
];
const PHRASES = [
  'used to narrow the results returned by the service',
  'as shown in the web interface, case-sensitive',
  'must belong to the authenticated account or one of its organisations',
  'the server rejects values outside the documented range',
  'defaults to the value configured for the workspace when omitted',
  'accepted formats are listed in the API reference for this endpoint',
];

class Generator {
  readonly #random: () => number;
  readonly #defs: Record<string, JsonObject> = {};
  readonly #defSamples = new Map<string, unknown>();

  constructor(random: () => number) {
    this.#random = random;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.#random() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }

  name(): string {
    return `${this.pick(WORDS)}_${this.pick(WORDS)}`;
  }

  description(subject: string): string {
    return `The ${subject.replace(/_/g, ' ')}; ${this.pick(PHRASES)}.`;
  }

  /** A schema node and a value it accepts. */
  node(depth: number): { schema: JsonObject; sample: unknown } {
    const roll = this.#random();
    if (depth > 0 && roll < 0.14) return this.object(depth - 1, this.int(2, 3));
    if (depth > 0 && roll < 0.24) return this.arrayOfObjects(depth - 1);
    if (depth > 0 && roll < 0.32) return this.reference(depth - 1);
    if (roll < 0.45) return this.enumeration();
    if (roll < 0.62) return this.string();
    if (roll < 0.76) return this.integer();
    if (roll < 0.84) return this.number();
    if (roll < 0.92) return { schema: { type: 'boolean' }, sample: true };
    const item = this.string();
    return {
      schema: { type: 'array', items: item.schema, maxItems: this.int(5, 50) },
      sample: [item.sample],
    };
  }

  string(): { schema: JsonObject; sample: unknown } {
    const schema: JsonObject = { type: 'string' };
    if (this.#random() < 0.15) {
      schema.minLength = 1;
      schema.maxLength = this.int(40, 500);
    }
    if (this.#random() < 0.25) schema.format = this.pick(['date-time', 'email', 'uri']);
    const sample =
      schema.format === 'date-time'
        ? '2024-05-01T12:00:00Z'
        : schema.format === 'email'
          ? 'someone@example.com'
          : schema.format === 'uri'
            ? 'https://example.com/a'
            : 'value';
    return { schema, sample };
  }

  integer(): { schema: JsonObject; sample: unknown } {
    const minimum = this.int(0, 10);
    return {
      schema: { type: 'integer', minimum, maximum: minimum + this.int(10, 10_000) },
      sample: minimum,
    };
  }

  number(): { schema: JsonObject; sample: unknown } {
    return { schema: { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000 }, sample: 1.5 };
  }

  enumeration(): { schema: JsonObject; sample: unknown } {
    const values = [...new Set(Array.from({ length: this.int(3, 7) }, () => this.pick(WORDS)))];
    return { schema: { type: 'string', enum: values }, sample: values[0] };
  }

  object(depth: number, count: number): { schema: JsonObject; sample: unknown } {
    const properties: JsonObject = {};
    const sample: Record<string, unknown> = {};
    const required: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const key = this.name();
      if (Object.hasOwn(properties, key)) continue;
      const child = this.node(depth);
      child.schema.description = this.description(key);
      properties[key] = child.schema;
      sample[key] = child.sample;
      if (this.#random() < 0.5) required.push(key);
    }
    const schema: JsonObject = { type: 'object', properties };
    if (required.length > 0) schema.required = required;
    if (this.#random() < 0.5) schema.additionalProperties = false;
    return { schema, sample };
  }

  arrayOfObjects(depth: number): { schema: JsonObject; sample: unknown } {
    const item = this.object(depth, this.int(2, 3));
    return {
      schema: { type: 'array', items: item.schema, minItems: 1, maxItems: this.int(10, 100) },
      sample: [item.sample],
    };
  }

  /** A `$ref` to a shared definition, created on first use. */
  reference(depth: number): { schema: JsonObject; sample: unknown } {
    const existing = Object.keys(this.#defs);
    if (existing.length > 0 && this.#random() < 0.4) {
      const name = this.pick(existing);
      return { schema: { $ref: `#/$defs/${name}` }, sample: this.#defSamples.get(name) };
    }
    const def = this.object(depth, this.int(2, 3));
    // Named after building: nested references may have added definitions meanwhile.
    const name = `${this.pick(WORDS)}${Object.keys(this.#defs).length}`;
    def.schema.description = this.description(name);
    this.#defs[name] = def.schema;
    this.#defSamples.set(name, def.sample);
    return { schema: { $ref: `#/$defs/${name}` }, sample: def.sample };
  }

  defs(): Record<string, JsonObject> {
    return this.#defs;
  }
}

/** `count` tools, the same for a given `seed` on every run and machine. */
export function generateTools(count = 1_000, seed = 20_260_831): GeneratedTool[] {
  const random = prng(seed);
  const tools: GeneratedTool[] = [];
  for (let i = 0; i < count; i += 1) {
    const gen = new Generator(random);
    const root = gen.object(3, gen.int(3, 7));
    const inputSchema: JsonObject = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      ...root.schema,
    };
    const defs = gen.defs();
    if (Object.keys(defs).length > 0) inputSchema.$defs = defs;
    tools.push({
      tool: {
        name: `tool_${String(i).padStart(4, '0')}_${gen.name()}`,
        description: `Operates on ${gen.pick(WORDS)} records: ${gen.pick(PHRASES)}.`,
        inputSchema: inputSchema as McpToolDescription['inputSchema'],
      },
      validArguments: root.sample as Record<string, unknown>,
    });
  }
  return tools;
}

/** Average JSON size of the tools' input schemas, in bytes. */
export function averageSchemaBytes(tools: readonly GeneratedTool[]): number {
  const total = tools.reduce(
    (sum, { tool }) => sum + Buffer.byteLength(JSON.stringify(tool.inputSchema)),
    0,
  );
  return total / tools.length;
}
