/**
 * Pins the shared core of the provider formats: `toolsOf` reads a rendered
 * prompt or a plain list, `providerToolName` refuses names the APIs would,
 * `invokeByName` routes a model's call (unknown names are error results
 * listing the tools) and `resultText` is what the model is shown.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PromptValidationError } from '../../src/core/errors.js';
import {
  PROVIDER_TOOL_NAME_PATTERN,
  invokeByName,
  providerToolName,
  resultText,
  toolsOf,
} from '../../src/ecosystem/tool-source.js';
import { Session } from '../../src/runtime/session.js';
import { Tool } from '../../src/tools/tool.js';
import { ToolResult } from '../../src/tools/tool-result.js';

const add = Tool.create({
  name: 'add',
  description: 'Adds two numbers',
  params: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => ToolResult.ok(a + b),
});
const waitForAbort = Tool.create({
  name: 'wait',
  description: 'Resolves when its call is aborted',
  params: z.object({}),
  handler: (_params, { signal }) =>
    new Promise<ToolResult<string>>((resolve) => {
      signal.addEventListener('abort', () =>
        resolve(ToolResult.error(`aborted: ${String(signal.reason)}`)),
      );
    }),
});
const mcpTool = Tool.trusted({
  name: 'srv_echo',
  description: 'Echoes',
  params: z.object({}),
  handler: () => ToolResult.ok({ content: [] }, 'Echo: hi'),
  origin: { kind: 'mcp', server: 'srv', originalName: 'echo' },
});

describe('toolsOf', () => {
  it('returns a plain list itself, and the tools of a rendered prompt', () => {
    const list = [add, mcpTool];
    expect(toolsOf(list)).toBe(list);
    const rendered = { tools: [mcpTool] };
    expect(toolsOf(rendered)).toBe(rendered.tools);
    expect(toolsOf([])).toEqual([]);
  });
});

describe('providerToolName', () => {
  it('is the pattern the OpenAI and Anthropic APIs take', () => {
    expect(PROVIDER_TOOL_NAME_PATTERN.source).toBe('^[a-zA-Z0-9_-]{1,64}$');
  });

  it('sends a valid name unchanged', () => {
    expect(providerToolName(add, 'OpenAI')).toBe('add');
    expect(providerToolName(mcpTool, 'Anthropic')).toBe('srv_echo');
  });

  it.each(['srv.echo', '', 'x'.repeat(65), 'café'])(
    'refuses %j (a tool that bypassed Tool.create), naming the provider and the rule',
    (name) => {
      const bad = Tool.trusted({ ...add, name, params: add.params, handler: add.handler });
      expect(() => providerToolName(bad, 'Anthropic')).toThrow(
        new PromptValidationError(
          `tool name ${JSON.stringify(name)} cannot be sent to Anthropic: it must match ^[a-zA-Z0-9_-]{1,64}$`,
        ),
      );
    },
  );
});

describe('invokeByName', () => {
  it('runs the named tool through its validator', async () => {
    const session = new Session();
    const result = await invokeByName([add], 'add', { a: 2, b: 3 }, { session });
    expect(result).toMatchObject({ success: true, message: 'OK', value: 5 });
    const refused = await invokeByName({ tools: [add] }, 'add', { a: 2 }, { session });
    expect(refused).toMatchObject({
      success: false,
      message:
        'invalid arguments for tool "add": b: Invalid input: expected number, received undefined',
    });
  });

  it('answers an unknown name with an error result listing the tools', async () => {
    const session = new Session();
    const result = await invokeByName([add, mcpTool], 'ADD', {}, { session });
    expect(result).toMatchObject({
      success: false,
      message: 'unknown tool "ADD"; available tools: add, srv_echo',
      value: null,
    });
    const none = await invokeByName([], 'add', {}, { session });
    expect(none.message).toBe('unknown tool "add"; available tools: (none)');
  });

  it('bounds that error: a long name by its length, at most 100 tools by name', async () => {
    const session = new Session();
    const long = await invokeByName([add], `x${'y'.repeat(100_000)}`, {}, { session });
    expect(long.message).toBe('unknown tool a string of 100001 characters; available tools: add');
    const many = Array.from({ length: 150 }, (_, index) =>
      Tool.create({
        name: `t${index}`,
        description: 'A tool',
        params: z.object({}),
        handler: () => ToolResult.ok(null),
      }),
    );
    const listed = await invokeByName(many, 'nope', {}, { session });
    expect(listed.message).toContain('t0, t1, ');
    expect(listed.message).toMatch(/, t99, and 50 more$/);
  });

  it('forwards the signal to the handler', async () => {
    const controller = new AbortController();
    const running = invokeByName(
      [waitForAbort],
      'wait',
      {},
      {
        session: new Session(),
        signal: controller.signal,
      },
    );
    controller.abort('stop');
    expect(await running).toMatchObject({ success: false, message: 'aborted: stop' });
  });
});

describe('resultText', () => {
  const circular: Record<string, unknown> = {};
  circular['self'] = circular;

  it.each<[string, { success: boolean; message: string; value: unknown }, string]>([
    ['a value behind "OK"', { success: true, message: 'OK', value: { sum: 5 } }, '{"sum":5}'],
    ['a string value behind "OK"', { success: true, message: 'OK', value: 'text' }, 'text'],
    ['a message and a value', { success: true, message: 'Added', value: [1, 2] }, 'Added\n[1,2]'],
    ['a number value', { success: true, message: 'OK', value: 0 }, '0'],
    ['a false value', { success: true, message: 'Done', value: false }, 'Done\nfalse'],
    ['a null value', { success: true, message: 'OK', value: null }, 'OK'],
    ['an undefined value', { success: true, message: 'Saved', value: undefined }, 'Saved'],
    ['a value JSON cannot write', { success: true, message: 'OK', value: circular }, 'OK'],
    ['a bigint value', { success: true, message: 'OK', value: 10n }, 'OK'],
    ['a function value', { success: true, message: 'OK', value: () => 1 }, 'OK'],
    ['a failure', { success: false, message: 'boom', value: { detail: 1 } }, 'boom'],
  ])('shows a native tool result with %s', (_label, result, text) => {
    expect(resultText(add, result)).toBe(text);
  });

  it('shows an MCP tool result as its message alone, and an unknown tool like a native one', () => {
    const result = { success: true, message: 'Echo: hi', value: { content: [] } };
    expect(resultText(mcpTool, result)).toBe('Echo: hi');
    expect(resultText(undefined, result)).toBe('Echo: hi\n{"content":[]}');
  });
});
