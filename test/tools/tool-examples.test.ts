/**
 * Tool examples are checked when the tool is created: each input against
 * the tool's params, descriptions for length, inputs and outputs for being
 * JSON data; what is kept is a frozen copy.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  PromptValidationError,
  Session,
  Tool,
  ToolResult,
  invokeTool,
  type ToolExample,
} from '../../src/index.js';

const AddParams = z.object({ a: z.number(), b: z.number() });

function addTool(examples: readonly ToolExample[]): Tool {
  return Tool.create({
    name: 'add',
    description: 'Adds two numbers',
    params: AddParams,
    handler: ({ a, b }) => ToolResult.ok(a + b),
    examples,
  });
}

/** The PromptValidationError message `create` throws. */
function rejection(create: () => unknown): string {
  try {
    create();
  } catch (error) {
    expect(error).toBeInstanceOf(PromptValidationError);
    return (error as PromptValidationError).message;
  }
  throw new Error('expected a PromptValidationError, nothing was thrown');
}

describe('Tool.create examples', () => {
  it('keeps valid examples, descriptions trimmed, frozen to the leaves', () => {
    const input = { a: 1, b: 2 };
    const tool = addTool([{ description: '  Add small numbers ', input, output: 3 }]);
    expect(tool.examples).toEqual([{ description: 'Add small numbers', input, output: 3 }]);
    expect(Object.isFrozen(tool.examples)).toBe(true);
    expect(Object.isFrozen(tool.examples[0])).toBe(true);
    expect(Object.isFrozen(tool.examples[0]!.input)).toBe(true);
    // A copy: changing the caller's object later changes nothing the model sees.
    input.a = 99;
    expect(tool.examples[0]!.input).toEqual({ a: 1, b: 2 });
  });

  it('has no examples unless given', () => {
    const tool = Tool.create({
      name: 'noop',
      description: 'Does nothing',
      params: z.object({}),
      handler: () => ToolResult.ok(null),
    });
    expect(tool.examples).toEqual([]);
  });

  it('names the tool, the example index and the field of an input the params refuse', () => {
    const message = rejection(() =>
      addTool([
        { description: 'fine', input: { a: 1, b: 2 }, output: 3 },
        { description: 'wrong type', input: { a: 1, b: 'two' }, output: 3 },
      ]),
    );
    expect(message).toBe(
      'tool "add" examples[1].input.b: Invalid input: expected number, received string ' +
        "(the example does not match the tool's params)",
    );
  });

  it('names every field that is wrong, and a missing one', () => {
    const message = rejection(() => addTool([{ description: 'empty', input: {}, output: 0 }]));
    expect(message).toContain('tool "add" examples[0].input.a: Invalid input: expected number');
    expect(message).toContain('tool "add" examples[0].input.b: Invalid input: expected number');
  });

  it('checks inputs against a schema given as a function, building it once', async () => {
    let built = 0;
    const params = (): typeof AddParams => {
      built += 1;
      return AddParams;
    };
    const create = (input: unknown): Tool =>
      Tool.create({
        name: 'add',
        description: 'Adds two numbers',
        params,
        handler: ({ a, b }) => ToolResult.ok(a + b),
        examples: [{ description: 'sum', input, output: 3 }],
      });
    expect(rejection(() => create({ a: 1 }))).toMatch(/^tool "add" examples\[0\]\.input\.b: /);
    const tool = create({ a: 1, b: 2 });
    const result = await invokeTool(tool, { a: 2, b: 3 }, { session: new Session() });
    expect(result.value).toBe(5);
    expect(built).toBe(2);
  });

  it.each([
    ['empty', '   ', 'received "   "'],
    ['too long', 'd'.repeat(201), 'received a string of 201 characters'],
    ['too long in code points', '😀'.repeat(201), 'received a string of 402 characters'],
    ['not a string', 42, 'received 42'],
  ])('rejects a description that is %s', (_case, description, received) => {
    const message = rejection(() =>
      addTool([{ description: description as string, input: { a: 1, b: 2 }, output: 3 }]),
    );
    expect(message).toBe(
      `tool "add" examples[0].description must be 1-200 characters after trimming, ${received}`,
    );
  });

  it('counts a description in code points: 200 emoji fit', () => {
    expect(() =>
      addTool([{ description: '😀'.repeat(200), input: { a: 1, b: 2 }, output: 3 }]),
    ).not.toThrow();
  });

  it('rejects an output that is not JSON data, and an example that is not an object', () => {
    expect(
      rejection(() =>
        addTool([{ description: 'when', input: { a: 1, b: 2 }, output: new Date(0) }]),
      ),
    ).toBe(
      'tool "add" examples[0].output must be JSON data (null, booleans, finite numbers, strings, arrays and plain objects), received a Date',
    );
    expect(
      rejection(() => addTool([{ description: 'nothing', input: { a: 1, b: 2 } } as ToolExample])),
    ).toMatch(/^tool "add" examples\[0\]\.output must be JSON data .*received undefined$/);
    expect(rejection(() => addTool(['add 1 and 2' as unknown as ToolExample]))).toBe(
      'tool "add" examples[0] must be an object { description, input, output }',
    );
  });

  it('rejects an input the schema accepts but JSON would change', () => {
    const tool = (): Tool =>
      Tool.create({
        name: 'when',
        description: 'Schedules at a time',
        params: z.object({ at: z.date() }),
        handler: () => ToolResult.ok(null),
        examples: [{ description: 'epoch', input: { at: new Date(0) }, output: 'ok' }],
      });
    expect(rejection(tool)).toMatch(/^tool "when" examples\[0\]\.input must be JSON data/);
  });

  it('refuses to guess about params with async refinements', () => {
    const message = rejection(() =>
      Tool.create({
        name: 'lookup',
        description: 'Looks a user up',
        params: z.object({ id: z.string().refine(async (id) => Promise.resolve(id.length > 0)) }),
        handler: () => ToolResult.ok(null),
        examples: [{ description: 'by id', input: { id: 'u1' }, output: null }],
      }),
    );
    expect(message).toMatch(
      /^tool "lookup" examples\[0\]\.input cannot be checked: the params schema has async refinements/,
    );
  });
});
