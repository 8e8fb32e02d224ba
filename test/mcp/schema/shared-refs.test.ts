/**
 * `$ref`s that lead to the same subschemas again and again make a
 * validator's work exponential without any loop: refused at connect when
 * they branch on one value, stopped by a budget of `$ref` steps when they
 * branch as the arguments nest; and a risky pattern reached through a
 * `$ref` into data is refused like any other.
 */
import { describe, expect, it } from 'vitest';
import { createInputValidator, inputSchemaRefusal } from '../../../src/mcp/schema/index.js';
import { ENUM_VALUES_PER_SCHEMA, MAX_SAME_VALUE_SCHEMAS } from '../../../src/mcp/schema/bounds.js';

const ids = { serverName: 's', toolName: 't' };

/** `allOf` of two `$ref`s to the next level, `depth` levels: 2^depth schemas on one value. */
function doubling(
  depth: number,
  leaf: Record<string, unknown> = { type: 'object' },
): Record<string, unknown> {
  const defs: Record<string, unknown> = { [`d${depth}`]: leaf };
  for (let i = 0; i < depth; i++) {
    defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
  }
  return { type: 'object', $defs: defs, allOf: [{ $ref: '#/$defs/d0' }] };
}

describe('references that branch into the same subschemas', () => {
  it('are refused at connect when they apply too many schemas to one value', () => {
    expect(inputSchemaRefusal(doubling(22))).toBe(
      `its $refs apply more than ${MAX_SAME_VALUE_SCHEMAS} schemas to one value (references that lead to the same subschemas again and again; an enum counts as one more per ${ENUM_VALUES_PER_SCHEMA} of its values), so checking a value could take exponential time`,
    );
    expect(() => createInputValidator(doubling(30), ids)).toThrow(/more than 10000 schemas/);
  });

  it('count a long enum they lead to as many schemas: each value is compared with each of its', () => {
    const long = { enum: Array.from({ length: 20_000 }, (_, i) => i) };
    // 64 applications of 201 schemas' worth: refused; of a short enum, or once: accepted.
    expect(inputSchemaRefusal(doubling(6, long))).toMatch(/apply more than 10000 schemas/);
    expect(inputSchemaRefusal(doubling(6, { enum: [1, 2, 3] }))).toBeUndefined();
    expect(inputSchemaRefusal(doubling(0, long))).toBeUndefined();
  });

  it('are accepted, and check values, while they stay under the limit', () => {
    expect(inputSchemaRefusal(doubling(10))).toBeUndefined(); // 1,024 schemas
    const validator = createInputValidator(doubling(10), ids);
    expect(validator.safeParse({ a: 1 }).success).toBe(true);
    const shared = {
      type: 'object',
      $defs: { id: { type: 'string', minLength: 1 } },
      properties: Object.fromEntries(
        Array.from({ length: 200 }, (_, i) => [`p${i}`, { $ref: '#/$defs/id' }]),
      ),
    };
    expect(inputSchemaRefusal(shared)).toBeUndefined();
    expect(createInputValidator(shared, ids).safeParse({ p1: '' }).success).toBe(false);
  });

  it('stop a check that branches as the arguments nest, with the reason, at once', () => {
    // Two ways down to the same property on every level: 2^depth checks of the innermost value.
    const schema = {
      type: 'object',
      $defs: {
        d: {
          allOf: [
            { properties: { x: { $ref: '#/$defs/d' } } },
            { properties: { x: { $ref: '#/$defs/d' } } },
          ],
        },
      },
      allOf: [{ $ref: '#/$defs/d' }],
    };
    expect(inputSchemaRefusal(schema)).toBeUndefined(); // data ends each level: no loop on one value
    let nested: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) nested = { x: nested };
    const validator = createInputValidator(schema, ids);
    expect(validator.safeParse({ x: { x: {} } }).success).toBe(true);
    const result = validator.safeParse(nested); // 2^40 steps without the budget
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(
      /could not be validated: checking them followed the schema's \$refs more than \d+ times/,
    );
  });
});

describe('$recursiveRef, which the validator follows without reading its lookup', () => {
  it('is counted like a $ref: a check that branches as the arguments nest stops, and recursion still checks', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      type: 'object',
      $recursiveAnchor: true,
      properties: { name: { type: 'string' } },
      allOf: [
        { properties: { x: { $recursiveRef: '#' } } },
        { properties: { x: { $recursiveRef: '#' } } },
      ],
    };
    const validator = createInputValidator(schema, ids);
    expect(validator.safeParse({ x: { x: { name: 'a' } } }).success).toBe(true);
    expect(validator.safeParse({ x: { name: 1 } }).error?.issues[0]?.path).toEqual(['x', 'name']);
    let nested: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) nested = { x: nested };
    const result = validator.safeParse(nested); // 2^40 steps without the count
    expect(result.error?.issues[0]?.message).toMatch(/followed the schema's \$refs more than/);
  });

  it('is refused where it would not be exact: another value than "#", or beside a $ref', () => {
    // $recursiveRef is 2019-09's (2020-12 replaced it with $dynamicRef).
    const refused = (node: Record<string, unknown>) => () =>
      createInputValidator(
        {
          $schema: 'https://json-schema.org/draft/2019-09/schema',
          type: 'object',
          properties: { a: node },
        },
        ids,
      );
    expect(refused({ $recursiveRef: '#/properties' })).toThrow(/must be "#"/);
    expect(refused({ $recursiveRef: '#', $ref: '#' })).toThrow(/no "\$ref" beside it/);
  });
});

describe('references followed once for each value of large arguments', () => {
  it('check thousands of rows and tree nodes, in a schema with hundreds of subschemas', () => {
    const options = Object.fromEntries(
      Array.from({ length: 120 }, (_, i) => [
        `opt${i}`,
        { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } },
      ]),
    );
    const schema = {
      type: 'object',
      $defs: {
        row: { type: 'object', properties: { id: { type: 'string' }, v: { type: 'number' } } },
        node: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/node' } },
          },
        },
      },
      properties: {
        ...options,
        rows: { type: 'array', items: { $ref: '#/$defs/row' } },
        root: { $ref: '#/$defs/node' },
      },
    };
    const validator = createInputValidator(schema, ids);
    const rows = Array.from({ length: 5_000 }, (_, i) => ({ id: `r${i}`, v: i }));
    const children = Array.from({ length: 5_000 }, (_, i) => ({ name: `n${i}`, children: [] }));
    expect(validator.safeParse({ rows, root: { name: 'r', children } }).success).toBe(true);
    const bad = validator.safeParse({ rows: [...rows, { id: 1 }] });
    expect(bad.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['rows.5000.id']);
  });
});

describe('a risky pattern reached only through a $ref into data', () => {
  it('is checked with RE2, not run on a backtracking engine', () => {
    const schema = {
      type: 'object',
      properties: { s: { $ref: '#/examples' } },
      examples: { type: 'string', pattern: '^(a+)+$' },
    };
    const validator = createInputValidator(schema, ids);
    expect(validator.safeParse({ s: `${'a'.repeat(40)}!` }).error?.issues[0]?.message).toBe(
      `"s" must match /^(a+)+$/u; received "${'a'.repeat(40)}…"`,
    );
    expect(validator.safeParse({ s: 'aaa' }).success).toBe(true);
  });

  it('is refused where RE2 cannot take it', () => {
    const schema = {
      type: 'object',
      properties: { s: { not: { $ref: '#/examples' } } },
      examples: { type: 'string', pattern: '^(a+)+$' },
    };
    expect(() => createInputValidator(schema, ids)).toThrow(
      /pattern "\^\(a\+\)\+\$" at #\/examples sits under "not", where it cannot be checked in linear time/,
    );
  });
});
