/**
 * Pins `toAiSdkTools` with native tools: one AI SDK tool per tool, keyed by
 * name (`__proto__` included), carrying the original JSON Schema;
 * `execute` returns `{ success, message, value }` for every expected
 * outcome and throws only for `[FATAL] `; `toModelOutput` is `text` or
 * `error-text`; both the options' signal and the SDK's `abortSignal` cancel.
 */
import type { ToolExecutionOptions } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpFatalToolError } from '../../src/core/errors.js';
import { toAiSdkTools, type AiSdkTool, type AiSdkToolOutput } from '../../src/ecosystem/ai-sdk.js';
import { Session } from '../../src/runtime/session.js';
import { Tool } from '../../src/tools/tool.js';
import { ToolResult } from '../../src/tools/tool-result.js';

const add = Tool.create({
  name: 'add',
  description: 'Adds two numbers',
  params: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => ToolResult.ok(a + b),
});
const fatal = Tool.create({
  name: 'fatal',
  description: 'Fails fatally',
  params: z.object({}),
  handler: () => ToolResult.error('[FATAL] disk gone'),
});
const waitForAbort = Tool.create({
  name: 'wait',
  description: 'Resolves when its call is aborted',
  params: z.object({}),
  handler: (_params, { signal }) =>
    new Promise<ToolResult<null>>((resolve) => {
      const done = (): void => resolve(ToolResult.error(`aborted: ${String(signal.reason)}`));
      if (signal.aborted) done();
      else signal.addEventListener('abort', done);
    }),
});
const proto = Tool.create({
  name: '__proto__',
  description: 'A tool with an awkward name',
  params: z.object({}),
  handler: () => ToolResult.ok(null, 'ran'),
});

function execution(abortSignal?: AbortSignal): ToolExecutionOptions {
  return {
    toolCallId: 'call-1',
    messages: [],
    ...(abortSignal === undefined ? {} : { abortSignal }),
  };
}

async function run(
  tool: AiSdkTool | undefined,
  args: Record<string, unknown>,
  options: ToolExecutionOptions = execution(),
): Promise<AiSdkToolOutput> {
  if (tool?.execute === undefined) throw new Error('tool has no execute');
  return (await tool.execute(args, options)) as AiSdkToolOutput;
}

describe('toAiSdkTools', () => {
  it('makes one tool per tool, keyed by name, with the description and original JSON Schema', async () => {
    const tools = await toAiSdkTools({ tools: [add, proto] }, { session: new Session() });
    expect(Object.keys(tools)).toEqual(['add', '__proto__']);
    expect(Object.hasOwn(tools, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(tools)).toBe(Object.prototype);
    expect(tools['add']?.description).toBe('Adds two numbers');
    expect((tools['add']?.inputSchema as { jsonSchema: unknown }).jsonSchema).toEqual(
      add.inputSchema,
    );
    expect(await run(tools['__proto__'], {})).toEqual({
      success: true,
      message: 'ran',
      value: null,
    });
    expect(await toAiSdkTools([], { session: new Session() })).toEqual({});
  });

  it('returns success and failure from execute as plain objects, never throwing for bad arguments', async () => {
    const tools = await toAiSdkTools([add], { session: new Session() });
    expect(await run(tools['add'], { a: 2, b: 3 })).toEqual({
      success: true,
      message: 'OK',
      value: 5,
    });
    expect(await run(tools['add'], { a: 'two', b: 3 })).toEqual({
      success: false,
      message:
        'invalid arguments for tool "add": a: Invalid input: expected number, received string',
      value: null,
    });
  });

  it('throws McpFatalToolError for a [FATAL] failure', async () => {
    const tools = await toAiSdkTools([fatal], { session: new Session() });
    const error: unknown = await run(tools['fatal'], {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpFatalToolError);
    expect(error).toMatchObject({ toolName: 'fatal', message: 'disk gone' });
  });

  it('gives the model text for a success (value shown) and error-text for a failure', async () => {
    const tools = await toAiSdkTools([add], { session: new Session() });
    const toModelOutput = tools['add']?.toModelOutput;
    if (toModelOutput === undefined) throw new Error('no toModelOutput');
    const input = { a: 1, b: 1 };
    const base = { toolCallId: 'call-1', input };
    expect(
      await toModelOutput({ ...base, output: { success: true, message: 'OK', value: 2 } }),
    ).toEqual({ type: 'text', value: '2' });
    expect(
      await toModelOutput({ ...base, output: { success: true, message: 'Added', value: 2 } }),
    ).toEqual({ type: 'text', value: 'Added\n2' });
    expect(
      await toModelOutput({ ...base, output: { success: false, message: 'no', value: 2 } }),
    ).toEqual({ type: 'error-text', value: 'no' });
  });

  it('cancels a call through the options signal', async () => {
    const controller = new AbortController();
    const tools = await toAiSdkTools([waitForAbort], {
      session: new Session(),
      signal: controller.signal,
    });
    const running = run(tools['wait'], {});
    controller.abort('app stop');
    expect(await running).toMatchObject({ success: false, message: 'aborted: app stop' });
  });

  it('cancels a call through the SDK abortSignal, with an options signal also present', async () => {
    const app = new AbortController();
    const sdk = new AbortController();
    const tools = await toAiSdkTools([waitForAbort], {
      session: new Session(),
      signal: app.signal,
    });
    const running = run(tools['wait'], {}, execution(sdk.signal));
    sdk.abort('sdk stop');
    expect(await running).toMatchObject({ success: false, message: 'aborted: sdk stop' });
    expect(app.signal.aborted).toBe(false);
  });

  it('does not start a call when one of the signals is already aborted', async () => {
    const app = new AbortController();
    const sdk = new AbortController();
    sdk.abort('early');
    const tools = await toAiSdkTools([waitForAbort], {
      session: new Session(),
      signal: app.signal,
    });
    expect(await run(tools['wait'], {}, execution(sdk.signal))).toMatchObject({
      success: false,
      message: 'tool "wait" was not started: cancelled: early',
    });
  });
});
