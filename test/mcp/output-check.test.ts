/**
 * Pins `outputSchemaViolation`: no declared schema or an error result is
 * never a violation; a declared schema without `structuredContent` is; a
 * schema the engine refuses is reported as unusable; a mismatch names at
 * most five issues as `path: message`, `(result)` for the root.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { outputSchemaViolation } from '../../src/mcp/output-check.js';
import { regExpsRunDuring } from './schema/regexp-spy.js';

const ids = { serverName: 'srv', toolName: 'calc' } as const;
const PREFIX = 'tool "calc" of server "srv"';
const MISMATCH = `${PREFIX} returned structuredContent that does not match its outputSchema: `;
const schema = {
  type: 'object',
  properties: { n: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['n'],
};

function structured(value: Record<string, unknown>): CallToolResult {
  return { content: [], structuredContent: value };
}

describe('outputSchemaViolation', () => {
  it('finds nothing when the tool declares no output schema', () => {
    expect(outputSchemaViolation(undefined, { content: [] }, ids)).toBeUndefined();
  });

  it('finds nothing in an error result, which need not match', () => {
    expect(outputSchemaViolation(schema, { content: [], isError: true }, ids)).toBeUndefined();
  });

  it('finds nothing in structuredContent that matches', () => {
    expect(outputSchemaViolation(schema, structured({ n: 1, tags: ['a'] }), ids)).toBeUndefined();
  });

  it('requires structuredContent when an output schema is declared', () => {
    expect(outputSchemaViolation(schema, { content: [{ type: 'text', text: '1' }] }, ids)).toBe(
      `${PREFIX} declares an outputSchema but returned no structuredContent`,
    );
  });

  it('names the path and the problem of each mismatch', () => {
    expect(outputSchemaViolation(schema, structured({ n: 'x' }), ids)).toBe(
      `${MISMATCH}n: "n" must be a number; received a string ("x")`,
    );
    expect(outputSchemaViolation(schema, structured({}), ids)).toBe(
      `${MISMATCH}n: "n" is required`,
    );
    expect(outputSchemaViolation(schema, structured({ n: 1, tags: [1, 'a', 2] }), ids)).toBe(
      `${MISMATCH}tags.0: "tags[0]" must be a string; received a number (1); ` +
        `tags.2: "tags[2]" must be a string; received a number (2)`,
    );
  });

  it('calls the root "(result)"', () => {
    expect(
      outputSchemaViolation({ type: 'object', minProperties: 2 }, structured({ a: 1 }), ids),
    ).toBe(`${MISMATCH}(result): the arguments must have at least 2 properties; received 1`);
  });

  it('names at most five issues', () => {
    const closed = { type: 'object', additionalProperties: false, properties: {} };
    const text = outputSchemaViolation(
      closed,
      structured({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 }),
      ids,
    );
    expect(text).toBe(
      MISMATCH +
        ['a', 'b', 'c', 'd', 'e'].map((k) => `${k}: "${k}" is not an allowed property`).join('; '),
    );
  });

  it("reports a schema the engine refuses as unusable, with the engine's reason", () => {
    expect(outputSchemaViolation({ type: 'string' }, structured({ a: 1 }), ids)).toBe(
      `${PREFIX} has an outputSchema that cannot be used: ${PREFIX}: top-level "type" must be ` +
        `"object" (MCP tools take an object of named arguments), received "string"`,
    );
    expect(outputSchemaViolation('nope', structured({ a: 1 }), ids)).toMatch(
      /^tool "calc" of server "srv" has an outputSchema that cannot be used: .*received a string \("nope"\)$/,
    );
  });

  it('checks a pattern that would stall a backtracking engine in linear time, on the server’s own data', async () => {
    const pattern = '^\\d*\\d*\\d*\\d*\\d*\\d*x$';
    const declared = { type: 'object', properties: { v: { type: 'string', pattern } } };
    let violation: string | undefined;
    const run = await regExpsRunDuring(() => {
      violation = outputSchemaViolation(declared, structured({ v: '1'.repeat(24) }), ids);
    });
    expect(run).not.toContain(pattern);
    expect(violation).toBe(
      `${MISMATCH}v: "v" must match /${pattern}/u; received "${'1'.repeat(24)}"`,
    );
    expect(outputSchemaViolation(declared, structured({ v: '12x' }), ids)).toBeUndefined();
  });
});
