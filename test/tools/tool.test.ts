import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  PromptValidationError,
  Session,
  Tool,
  ToolResult,
  invokeTool,
  type ToolOptions,
} from '../../src/index.js';

const base: ToolOptions<z.ZodObject, null> = {
  name: 'echo',
  description: 'Echoes its input',
  params: z.object({}),
  handler: () => ToolResult.ok(null),
};

/** Runs `Tool.create`, expecting a PromptValidationError, and returns its message. */
function rejection(overrides: Partial<ToolOptions<z.ZodObject, null>>): string {
  try {
    Tool.create({ ...base, ...overrides });
  } catch (error) {
    expect(error).toBeInstanceOf(PromptValidationError);
    return (error as PromptValidationError).message;
  }
  throw new Error('expected a PromptValidationError, nothing was thrown');
}

describe('Tool.create', () => {
  describe('name', () => {
    it.each(['a', 'read_file', 'get-page', '0x', 'x'.repeat(64)])('accepts %s', (name) => {
      expect(Tool.create({ ...base, name }).name).toBe(name);
    });

    it('rejects a name of 65 characters, quoting it', () => {
      const name = 'x'.repeat(65);
      expect(rejection({ name })).toBe(`tool name "${name}" must match ^[a-z0-9_-]{1,64}$`);
    });

    it('rejects a name with capitals, quoting it', () => {
      expect(rejection({ name: 'readFile' })).toBe(
        'tool name "readFile" must match ^[a-z0-9_-]{1,64}$',
      );
    });

    it.each(['', 'read.file', 'read file', 'café'])('rejects %j', (name) => {
      expect(rejection({ name })).toContain(JSON.stringify(name));
    });
  });

  describe('description', () => {
    it('is stored trimmed', () => {
      expect(Tool.create({ ...base, description: '\n  Echoes.  \n' }).description).toBe('Echoes.');
    });

    it('accepts exactly 200 characters after trimming', () => {
      const description = 'd'.repeat(200);
      expect(Tool.create({ ...base, description: `  ${description}  ` }).description).toBe(
        description,
      );
    });

    it('rejects an empty description, quoting it', () => {
      expect(rejection({ description: '' })).toBe(
        'description of tool "echo" must be 1-200 characters after trimming, got 0: ""',
      );
    });

    it('rejects a description that is blank after trimming', () => {
      expect(rejection({ description: ' \n\t ' })).toContain('got 0: ""');
    });

    it('counts characters as code points: an emoji is one character', () => {
      const emoji = '\u{1F600}';
      expect(Tool.create({ ...base, description: emoji.repeat(150) }).description).toBe(
        emoji.repeat(150),
      );
      expect(Tool.create({ ...base, description: ` ${emoji.repeat(200)} ` }).description).toBe(
        emoji.repeat(200),
      );
      expect(rejection({ description: emoji.repeat(201) })).toContain(
        'must be 1-200 characters after trimming, got 201:',
      );
      // A combining mark is a code point of its own: 'e\u0301' is two characters.
      expect(() => Tool.create({ ...base, description: 'e\u0301'.repeat(100) })).not.toThrow();
      expect(rejection({ description: 'e\u0301'.repeat(101) })).toContain('got 202:');
    });

    it('rejects a description that is not a string, saying what it got', () => {
      expect(rejection({ description: 123 as never })).toBe(
        'description of tool "echo" must be a string of 1-200 characters, received a number (123)',
      );
      expect(rejection({ description: undefined as never })).toBe(
        'description of tool "echo" must be a string of 1-200 characters, received nothing',
      );
      expect(rejection({ description: ['Echoes'] as never })).toContain('received an array');
    });

    it('rejects a description of 201 characters, quoting it', () => {
      const description = 'd'.repeat(201);
      expect(rejection({ description })).toBe(
        `description of tool "echo" must be 1-200 characters after trimming, got 201: "${description}"`,
      );
    });
  });

  it('rejects a missing handler, or one that is not a function, when the tool is created', () => {
    expect(rejection({ handler: undefined as never })).toBe(
      'handler of tool "echo" must be a function (params, context) => ToolResult, received nothing',
    );
    expect(rejection({ handler: 'echo' as never })).toBe(
      'handler of tool "echo" must be a function (params, context) => ToolResult, received "echo"',
    );
    const { handler: _dropped, ...withoutHandler } = base;
    expect(() => Tool.create(withoutHandler as never)).toThrow(PromptValidationError);
  });

  it('withDescription keeps every other option, the internal ones included', () => {
    const maskInEvents = (data: unknown): unknown => data;
    const refusal = (): string => 'refused';
    const writesInCall = (): boolean => false;
    const tool = Tool.trusted({
      name: 'lookup',
      description: 'Looks up',
      params: z.object({ q: z.string() }),
      handler: () => ToolResult.ok(null),
      annotations: { readOnlyHint: true },
      origin: { kind: 'mcp', server: 'srv', originalName: 'lookup' },
      writesInCall,
      refusal,
      maskInEvents,
    });
    const other = tool.withDescription('Finds things');
    expect(other.description).toBe('Finds things');
    // Every member but the description, whatever members a Tool gains later.
    for (const key of Object.keys(tool) as (keyof typeof tool)[]) {
      if (key !== 'description') expect(other[key], key).toEqual(tool[key]);
    }
    expect(other).toMatchObject({ writesInCall, refusal, maskInEvents });
    expect(other.params).toBe(tool.params);
    expect(other.inputSchema).toBe(tool.inputSchema);
  });

  it('rejects params that are not a zod schema', () => {
    expect(rejection({ params: { type: 'object' } as never })).toBe(
      'params of tool "echo" must be a zod schema or a function returning one',
    );
  });

  it('builds params given as a function once, on first use', async () => {
    let built = 0;
    const lazy = Tool.create({
      ...base,
      params: () => {
        built += 1;
        return z.object({ message: z.string() });
      },
    });
    expect(built).toBe(0);
    const session = new Session();
    expect((await invokeTool(lazy, { message: 'a' }, { session })).success).toBe(true);
    expect((await invokeTool(lazy, { message: 1 }, { session })).success).toBe(false);
    expect(built).toBe(1);
  });

  it('turns a params function that returns no zod schema into an error result', async () => {
    const broken = Tool.create({ ...base, params: () => ({ type: 'object' }) as never });
    const result = await invokeTool(broken, {}, { session: new Session() });
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/params factory of tool "echo" did not return a zod schema/);
  });

  it('is frozen and native by default', () => {
    const echo = Tool.create(base);
    expect(Object.isFrozen(echo)).toBe(true);
    expect(echo.origin).toEqual({ kind: 'native' });
    expect(echo.annotations).toEqual({});
  });

  it('derives the input schema from params unless one is given', () => {
    const derived = Tool.create({ ...base, params: z.object({ text: z.string() }) });
    expect(derived.inputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
    const given = { type: 'object', properties: { q: { type: 'string' } } } as const;
    expect(Tool.create({ ...base, inputSchema: given }).inputSchema).toBe(given);
  });
});

describe('ToolResult', () => {
  it('ok() defaults its message to OK', () => {
    expect(ToolResult.ok(3)).toMatchObject({ message: 'OK', value: 3, success: true });
    expect(ToolResult.ok('x', 'done')).toMatchObject({
      message: 'done',
      value: 'x',
      success: true,
    });
  });

  it('error() defaults its value to null', () => {
    expect(ToolResult.error('nope')).toMatchObject({
      message: 'nope',
      value: null,
      success: false,
    });
    expect(ToolResult.error('nope', { code: 7 })).toMatchObject({ value: { code: 7 } });
  });

  it('is frozen, and is() tells results from look-alikes', () => {
    const result = ToolResult.ok(1);
    expect(Object.isFrozen(result)).toBe(true);
    expect(ToolResult.is(result)).toBe(true);
    expect(ToolResult.is({ message: 'OK', value: 1, success: true })).toBe(false);
  });
});
