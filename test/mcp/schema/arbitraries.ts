/**
 * fast-check generators of simple JSON Schemas and of values that often hit
 * their edges, for the fidelity property (our verdict = the reference's).
 */
import fc from 'fast-check';

/** A JSON value as the generators produce it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Property names shared by schemas and values, so values often meet the schema. */
export const NAMES = ['a', 'b', 'c'] as const;

const scalar: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>('', 'a', 'ab', 'abc', 'Abc', 'a1', '😀', 'é', '😀😀', 'x y', '12'),
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom<Json>(0, 1, 2, 1.5, -0.5, 0.1, 0.3, 1e-7, 100, 2 ** 31),
  fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);

/** Values: scalars, short arrays and objects keyed by {@link NAMES} (plus strays). */
export const valueArb: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'toString'), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** An object value keyed by {@link NAMES}, as tool arguments are. */
export const argumentsArb: fc.Arbitrary<{ [key: string]: Json }> = fc.dictionary(
  fc.constantFrom('a', 'b', 'c', 'd'),
  valueArb,
  { maxKeys: 4 },
);

type Schema = { [key: string]: Json } | boolean;

const primitive = fc.oneof(
  fc.constantFrom<Json>('a', 'ab', '😀', 0, 1, 1.5, true, false, null),
  fc.integer({ min: -3, max: 3 }),
);
const typeName = fc.constantFrom(
  'string',
  'number',
  'integer',
  'boolean',
  'null',
  'array',
  'object',
);
const patterns = fc.constantFrom(
  '^a',
  '^[a-z]+$',
  'b',
  '^.$',
  '\\d',
  '^\\S+$',
  '^\\p{L}+$',
  '[^a]',
);

const leaf: fc.Arbitrary<Schema> = fc.oneof(
  fc.boolean(),
  fc.constant({}),
  fc.record(
    { type: fc.constant('string'), minLength: fc.nat(3), maxLength: fc.nat(3), pattern: patterns },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constantFrom('number', 'integer'),
      minimum: fc.integer({ min: -3, max: 3 }),
      maximum: fc.integer({ min: -3, max: 3 }),
      exclusiveMinimum: fc.constantFrom(-1, 0, 0.5),
      exclusiveMaximum: fc.constantFrom(1, 2, 1.5),
      multipleOf: fc.constantFrom(1, 2, 0.5, 0.1),
    },
    { requiredKeys: ['type'] },
  ),
  typeName.map((type) => ({ type })),
  fc.uniqueArray(typeName, { minLength: 1, maxLength: 3 }).map((type) => ({ type })),
  fc.array(primitive, { minLength: 1, maxLength: 4 }).map((values) => ({ enum: values })),
  fc.record({ type: typeName, enum: fc.array(primitive, { minLength: 1, maxLength: 3 }) }),
  primitive.map((value) => ({ const: value })),
  fc.record(
    { minLength: fc.nat(2), minimum: fc.integer({ min: -1, max: 1 }) },
    { requiredKeys: [] },
  ),
);

/** Schemas up to a few levels deep, covering the keywords both paths handle. */
export const schemaArb: fc.Arbitrary<Schema> = fc.letrec<{ schema: Schema }>((tie) => {
  const sub = tie('schema');
  const object = fc.record(
    {
      type: fc.constant('object'),
      properties: fc.dictionary(fc.constantFrom(...NAMES), sub, { maxKeys: 3 }),
      required: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 2 }),
      additionalProperties: fc.oneof(fc.boolean(), sub),
      minProperties: fc.nat(2),
      maxProperties: fc.nat(3),
    },
    { requiredKeys: ['type'] },
  );
  const array = fc.record(
    {
      type: fc.constant('array'),
      items: sub,
      prefixItems: fc.array(sub, { minLength: 1, maxLength: 2 }),
      minItems: fc.nat(2),
      maxItems: fc.nat(3),
      uniqueItems: fc.boolean(),
    },
    { requiredKeys: ['type'] },
  );
  const composed = fc.oneof(
    fc.array(sub, { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
    fc.array(sub, { minLength: 1, maxLength: 3 }).map((oneOf) => ({ oneOf })),
    fc.array(sub, { minLength: 1, maxLength: 2 }).map((allOf) => ({ allOf })),
    sub.map((s) => ({ anyOf: [s, { type: 'null' }] })),
    fc.record({ type: typeName, anyOf: fc.array(sub, { minLength: 1, maxLength: 2 }) }),
    sub.map((not) => ({ not })),
    fc.record({ if: sub, then: sub, else: sub }, { requiredKeys: ['if'] }),
  );
  return {
    schema: fc.oneof({ depthSize: 'small', maxDepth: 3 }, leaf, object, array, composed),
  };
}).schema;

/** A tool input schema: an object, sometimes with `$defs` reached through `$ref`. */
export const rootSchemaArb: fc.Arbitrary<{ [key: string]: Json }> = fc
  .record(
    {
      properties: fc.dictionary(fc.constantFrom(...NAMES), schemaArb, { maxKeys: 3 }),
      required: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 3 }),
      additionalProperties: fc.oneof(fc.boolean(), schemaArb),
      def: schemaArb,
      refFrom: fc.constantFrom(...NAMES),
      typed: fc.boolean(),
    },
    { requiredKeys: ['properties', 'def', 'refFrom', 'typed'] },
  )
  .map(({ properties, required, additionalProperties, def, refFrom, typed }) => {
    const root: { [key: string]: Json } = {
      properties: { ...properties, [refFrom]: { $ref: '#/$defs/d' } },
      $defs: { d: def as Json },
    };
    if (typed) root['type'] = 'object';
    if (required !== undefined) root['required'] = required;
    if (additionalProperties !== undefined) root['additionalProperties'] = additionalProperties;
    return root;
  });
