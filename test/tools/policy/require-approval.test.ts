import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  PromptValidationError,
  Session,
  Tool,
  ToolResult,
  invokeTool,
  requireApproval,
  type ApprovalRequest,
  type RequireApprovalOptions,
} from '../../../src/index.js';

/** A tool that counts its runs. */
function counted(name: string): { tool: Tool; runs: () => number } {
  let runs = 0;
  const tool = Tool.create({
    name,
    description: 'Moves money',
    params: z.object({ amount: z.number() }),
    handler: () => {
      runs += 1;
      return ToolResult.ok('done');
    },
  });
  return { tool, runs: () => runs };
}

async function run(
  options: RequireApprovalOptions<{ amount: number }>,
  tool: Tool,
  amount: number,
  asked: ApprovalRequest[],
): Promise<ToolResult> {
  return invokeTool(
    tool,
    { amount },
    {
      session: new Session(),
      policies: [requireApproval(options)],
      approval: (request) => {
        asked.push(request);
        return { deny: 'not today' };
      },
    },
  );
}

describe('requireApproval', () => {
  it('asks about the tools it names, with the default reason, and lets the others run', async () => {
    const transfer = counted('transfer');
    const balance = counted('balance');
    const asked: ApprovalRequest[] = [];
    const refused = await run({ tools: ['transfer'] }, transfer.tool, 10, asked);
    expect(refused.message).toBe(
      'tool "transfer" was denied by policy "require-approval": approval was refused: not today',
    );
    expect(asked.map((request) => request.reason)).toEqual([
      'tool "transfer" needs approval before it runs',
    ]);
    expect((await run({ tools: ['transfer'] }, balance.tool, 10, asked)).success).toBe(true);
    expect([transfer.runs(), balance.runs(), asked.length]).toEqual([0, 1, 1]);
  });

  it('asks only when `when` holds, given the parsed params', async () => {
    const transfer = counted('transfer');
    const asked: ApprovalRequest[] = [];
    const options = { when: (params: { amount: number }) => params.amount > 100 };
    expect((await run(options, transfer.tool, 50, asked)).success).toBe(true);
    expect((await run(options, transfer.tool, 500, asked)).success).toBe(false);
    expect(asked.map((request) => request.params)).toEqual([{ amount: 500 }]);
    expect(transfer.runs()).toBe(1);
  });

  it('takes its reason and name from the options', async () => {
    const transfer = counted('transfer');
    const asked: ApprovalRequest[] = [];
    await run(
      { name: 'big-money', reason: (tool, params) => `${tool.name} of ${params.amount} EUR` },
      transfer.tool,
      900,
      asked,
    );
    await run({ reason: 'finance signs off' }, transfer.tool, 1, asked);
    expect(asked.map((request) => request.reasons)).toEqual([
      [{ policy: 'big-money', reason: 'transfer of 900 EUR' }],
      [{ policy: 'require-approval', reason: 'finance signs off' }],
    ]);
  });

  it.each<[string, RequireApprovalOptions, string]>([
    ['a bad name', { name: 'Needs OK' }, 'requireApproval: name "Needs OK" must match'],
    [
      'a tool list entry that is empty',
      { tools: [''] },
      'requireApproval "require-approval": tools[0] must be a tool name',
    ],
    [
      'a when that is not a function',
      { when: true as never },
      'requireApproval "require-approval": when must be a function of the params, received boolean',
    ],
    [
      'an empty reason',
      { reason: ' ' },
      'requireApproval "require-approval": reason must be a non-empty string or a function, received " "',
    ],
  ])('refuses %s', (_label, options, message) => {
    expect(() => requireApproval(options)).toThrow(PromptValidationError);
    expect(() => requireApproval(options)).toThrow(message);
  });
});
