/**
 * `direct-check.ts`: a validator's own check, which `invokeTool` calls
 * instead of zod's machinery, with the same verdicts and messages as the
 * zod schema it is attached to.
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Session, Tool, ToolResult, invokeTool } from '../../src/index.js';
import { createInputValidator } from '../../src/mcp/schema/index.js';
import { directCheckOf, withDirectCheck } from '../../src/tools/direct-check.js';

const session = (): Session => new Session();

describe('withDirectCheck', () => {
  it('is found on the schema it was attached to, and only there', () => {
    const schema = z.object({ a: z.string() });
    const check = vi.fn(() => []);
    expect(withDirectCheck(schema, check)).toBe(schema);
    expect(directCheckOf(schema)).toBe(check);
    expect(directCheckOf(z.object({ a: z.string() }))).toBeUndefined();
  });

  it('is what invokeTool calls: its problems become the error, none lets the handler run', async () => {
    const check = vi.fn((value: unknown) =>
      (value as { n?: unknown }).n === 1 ? [] : [{ path: ['n'], message: 'must be 1' }],
    );
    const handler = vi.fn(() => ToolResult.ok(null, 'ran'));
    const tool = Tool.create({
      name: 'one',
      description: 'Takes n = 1.',
      params: withDirectCheck(z.record(z.string(), z.unknown()), check),
      handler,
    });
    const bad = await invokeTool(tool, { n: 2 }, { session: session() });
    expect(bad.message).toBe('invalid arguments for tool "one": n: must be 1');
    expect(handler).not.toHaveBeenCalled();
    const good = await invokeTool(tool, { n: 1 }, { session: session() });
    expect(good).toMatchObject({ success: true, message: 'ran' });
    expect(check).toHaveBeenCalledTimes(2);
  });
});

describe('the validators of MCP tool schemas', () => {
  const schema = {
    type: 'object',
    properties: { user: { type: 'object', properties: { age: { type: 'integer' } } } },
    required: ['user'],
  };

  it.each([
    ['a wrong type deep down', { user: { age: 'ten' } }],
    ['a missing property', {}],
    ['no object at all', ['x']],
  ])('give invokeTool the same message as their zod schema (%s)', async (_name, args) => {
    const params = createInputValidator(schema, { serverName: 's', toolName: 't' });
    expect(directCheckOf(params)).toBeDefined();
    const tool = Tool.create({
      name: 't',
      description: 'T.',
      params,
      handler: () => ToolResult.ok(null, 'ran'),
    });
    const parsed = params.safeParse(args);
    expect(parsed.success).toBe(false);
    const viaZod = (parsed.error?.issues ?? [])
      .map(
        (issue) =>
          `${issue.path.length === 0 ? '(arguments)' : issue.path.join('.')}: ${issue.message}`,
      )
      .join('; ');
    const result = await invokeTool(tool, args, { session: session() });
    expect(result.message).toBe(`invalid arguments for tool "t": ${viaZod}`);
  });
});
