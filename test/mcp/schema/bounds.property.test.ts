/**
 * `schemaBoundsRefusal`'s reference walk against a plain transcription of
 * what it decides: from every schema with a local `$ref`, follow references
 * and the keywords that apply to the same value; a node met again on the
 * way is a loop, and the schemas reached count (a reference or keyword met
 * twice counts twice) against the limit. Generated schemas mix references
 * between `$defs`, to the root, and dangling, with every same-value keyword
 * and with recursion through `properties` and `items`, which data ends.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type JsonRecord, isJsonRecord } from '../../../src/core/json.js';
import {
  ENUM_VALUES_PER_SCHEMA,
  MAX_SAME_VALUE_SCHEMAS,
  schemaBoundsRefusal,
} from '../../../src/mcp/schema/bounds.js';

type Node = JsonRecord;

const DEFS = ['d0', 'd1', 'd2', 'd3', 'd4'];
const SAME_VALUE_LISTS = ['allOf', 'anyOf', 'oneOf'];
const SAME_VALUE_ONE = ['not', 'if', 'then', 'else'];

const refArb = fc.constantFrom(...DEFS.map((name) => `#/$defs/${name}`), '#', '#/$defs/none');

const nodeArb: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant<Node>({ type: 'string' }),
    // An enum long enough to count as several schemas.
    fc
      .integer({ min: 0, max: 1_500 })
      .map((length) => ({ enum: Array.from({ length }, (_, i) => i) })),
    refArb.map((ref) => ({ $ref: ref })),
    fc.tuple(refArb, tie('node')).map(([ref, not]) => ({ $ref: ref, not })),
    fc
      .tuple(fc.constantFrom(...SAME_VALUE_LISTS), fc.array(tie('node'), { maxLength: 4 }))
      .map(([keyword, subs]) => ({ [keyword]: subs })),
    fc
      .tuple(fc.constantFrom(...SAME_VALUE_ONE), tie('node'))
      .map(([keyword, sub]) => ({ [keyword]: sub })),
    fc
      .tuple(fc.constantFrom('dependentSchemas', 'dependencies'), tie('node'))
      .map(([keyword, sub]) => ({ [keyword]: { a: sub } })),
    tie('node').map((sub) => ({ type: 'object', properties: { a: sub } })),
    tie('node').map((items) => ({ type: 'array', items })),
    // Many references to one place, so that counts pass the limit.
    fc
      .tuple(refArb, fc.integer({ min: 2, max: 14 }))
      .map(([ref, times]) => ({ allOf: Array.from({ length: times }, () => ({ $ref: ref })) })),
  ),
})).node;

/** `$defs` of any shape. */
const anyDefsArb = fc.array(nodeArb, { minLength: DEFS.length, maxLength: DEFS.length });

/**
 * `$defs` as a ladder: each step refers to the next one several times, so
 * that the count multiplies and often passes the limit; the last step is
 * any node, which may refer back up.
 */
const ladderDefsArb = fc
  .tuple(
    fc.array(fc.integer({ min: 1, max: 14 }), {
      minLength: DEFS.length - 1,
      maxLength: DEFS.length - 1,
    }),
    nodeArb,
  )
  .map(([times, last]): Node[] => [
    ...times.map((count, step) => ({
      allOf: Array.from({ length: count }, () => ({ $ref: `#/$defs/${DEFS[step + 1]}` })),
    })),
    last,
  ]);

const schemaArb: fc.Arbitrary<Node> = fc
  .tuple(fc.oneof(anyDefsArb, ladderDefsArb), nodeArb)
  .map(([defs, property]) => ({
    type: 'object',
    properties: { p: property },
    $defs: Object.fromEntries(defs.map((def, index): [string, Node] => [`d${index}`, def])),
  }));

/** The decision, transcribed: 'loop', or the most schemas that apply to one value. */
function expected(schema: Node): 'loop' | number {
  const finished = new Map<Node, number>();
  const onPath = new Set<Node>();
  const resolve = (ref: string): unknown => {
    if (ref === '#') return schema;
    const name = ref.slice('#/$defs/'.length);
    return Object.hasOwn(schema.$defs as Node, name) ? (schema.$defs as Node)[name] : undefined;
  };
  const applied = (node: unknown): number | 'loop' => {
    if (!isJsonRecord(node)) return 0;
    if (onPath.has(node)) return 'loop';
    const known = finished.get(node);
    if (known !== undefined) return known;
    onPath.add(node);
    const subs: unknown[] = [];
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#')) subs.push(resolve(node.$ref));
    for (const keyword of SAME_VALUE_LISTS)
      if (Array.isArray(node[keyword])) subs.push(...node[keyword]);
    for (const keyword of SAME_VALUE_ONE) if (keyword in node) subs.push(node[keyword]);
    for (const keyword of ['dependentSchemas', 'dependencies']) {
      if (isJsonRecord(node[keyword])) subs.push(...Object.values(node[keyword]));
    }
    // Checking a value against an enum compares it with each value.
    let count = Array.isArray(node.enum)
      ? 1 + Math.floor(node.enum.length / ENUM_VALUES_PER_SCHEMA)
      : 1;
    for (const sub of subs) {
      const result = applied(sub);
      if (result === 'loop') return 'loop';
      count += result;
    }
    onPath.delete(node);
    const capped = Math.min(count, MAX_SAME_VALUE_SCHEMAS + 1);
    finished.set(node, capped);
    return capped;
  };
  let most = 0;
  for (const node of referring(schema)) {
    const result = applied(node);
    if (result === 'loop') return 'loop';
    most = Math.max(most, result);
  }
  return most;
}

/** Every object of `schema` with a local `$ref`, in no particular order. */
function referring(schema: Node): Node[] {
  const found: Node[] = [];
  const pending: unknown[] = [schema];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (Array.isArray(node)) pending.push(...(node as unknown[]));
    else if (isJsonRecord(node)) {
      if (typeof node.$ref === 'string' && node.$ref.startsWith('#')) found.push(node);
      pending.push(...Object.values(node));
    }
  }
  return found;
}

describe('schemaBoundsRefusal: the reference walk', () => {
  it('refuses exactly the schemas whose references loop or apply too many schemas', () => {
    let loops = 0;
    let overLimit = 0;
    fc.assert(
      fc.property(schemaArb, (schema) => {
        const verdict = expected(schema);
        const refusal = schemaBoundsRefusal(schema);
        if (verdict === 'loop') {
          loops++;
          expect(refusal).toMatch(/^its \$refs loop without any data in between/);
        } else if (verdict > MAX_SAME_VALUE_SCHEMAS) {
          overLimit++;
          expect(refusal).toMatch(/^its \$refs apply more than 10000 schemas/);
        } else {
          expect(refusal).toBeUndefined();
        }
      }),
      { numRuns: 2_000 },
    );
    // The generator reaches every verdict often enough to mean something.
    expect(loops).toBeGreaterThan(100);
    expect(overLimit).toBeGreaterThan(10);
  });
});
