/**
 * The provider helpers run a rendered prompt's policies: each route a
 * model's call can take (Chat Completions, Responses, Anthropic, the AI
 * SDK, LangChain) asks the approval handler given to it, and only the
 * approved call runs. A plain tool list carries no policies.
 */
import type { ToolExecutionOptions } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toAiSdkTools, type AiSdkToolOutput } from '../../src/ai-sdk.js';
import {
  MarkdownSection,
  Prompt,
  PromptTemplate,
  Session,
  Tool,
  ToolInvoked,
  ToolResult,
  invokeFromAnthropic,
  invokeFromOpenAI,
  invokeFromOpenAIResponses,
  requireApproval,
  type ApprovalHandler,
  type RenderedPrompt,
} from '../../src/index.js';
import { toLangChainTools } from '../../src/langchain.js';

interface Fixture {
  readonly rendered: RenderedPrompt;
  readonly session: Session;
  /** Ids the tool deleted, in order. */
  readonly deleted: string[];
  readonly denials: (string | undefined)[];
  /** Approves `keep-me`, denies anything else. */
  readonly approval: ApprovalHandler;
}

function fixture(): Fixture {
  const deleted: string[] = [];
  const remove = Tool.create({
    name: 'delete_note',
    description: 'Deletes a note',
    params: z.object({ id: z.string() }),
    handler: ({ id }) => {
      deleted.push(id);
      return ToolResult.ok(`deleted ${id}`);
    },
  });
  const notes = new MarkdownSection({
    key: 'notes',
    title: 'Notes',
    template: 'Manage notes.',
    tools: [remove],
    policies: [requireApproval({ tools: ['delete_note'] })],
  });
  const rendered = new Prompt(
    PromptTemplate.create({ ns: 'agent', key: 'notes', sections: [notes] }),
  ).render();
  const session = new Session();
  const denials: (string | undefined)[] = [];
  session.bus.subscribe(ToolInvoked, (event) => denials.push(event.denial?.policy));
  const approval: ApprovalHandler = (request) =>
    (request.params as { id: string }).id === 'draft-1' ? 'approve' : 'deny';
  return { rendered, session, deleted, denials, approval };
}

const EXECUTION: ToolExecutionOptions = { toolCallId: 'call-1', messages: [] };

describe('provider helpers and policies', () => {
  it('Chat Completions, Responses and Anthropic calls ask, and run only what is approved', async () => {
    const { rendered, session, deleted, denials, approval } = fixture();
    const options = { session, approval };
    const call = (id: string) => ({
      type: 'function' as const,
      function: { name: 'delete_note', arguments: JSON.stringify({ id }) },
    });

    expect((await invokeFromOpenAI(rendered, call('draft-1'), options)).success).toBe(true);
    expect((await invokeFromOpenAI(rendered, call('contract'), options)).message).toBe(
      'tool "delete_note" was denied by policy "require-approval": approval was refused',
    );
    const responses = (id: string) => ({
      type: 'function_call' as const,
      call_id: 'c',
      name: 'delete_note',
      arguments: JSON.stringify({ id }),
    });
    expect(
      (await invokeFromOpenAIResponses(rendered, responses('contract'), options)).success,
    ).toBe(false);
    expect(
      (
        await invokeFromAnthropic(
          rendered,
          { name: 'delete_note', input: { id: 'contract' } },
          options,
        )
      ).success,
    ).toBe(false);

    expect(deleted).toEqual(['draft-1']);
    expect(denials).toEqual([
      undefined,
      'require-approval',
      'require-approval',
      'require-approval',
    ]);
  });

  it('without an approval handler the helpers deny what a policy asks about', async () => {
    const { rendered, session, deleted } = fixture();
    const result = await invokeFromAnthropic(
      rendered,
      { name: 'delete_note', input: { id: 'draft-1' } },
      { session },
    );
    expect(result.message).toMatch(/without an approval handler/);
    expect(deleted).toEqual([]);
  });

  it('AI SDK tools made from a rendered prompt obey its policies', async () => {
    const { rendered, session, deleted, approval } = fixture();
    const tools = await toAiSdkTools(rendered, { session, approval });
    const execute = tools['delete_note']?.execute;
    if (execute === undefined) throw new Error('no execute');
    const approved = (await execute({ id: 'draft-1' }, EXECUTION)) as AiSdkToolOutput;
    const refused = (await execute({ id: 'contract' }, EXECUTION)) as AiSdkToolOutput;
    expect([approved.success, refused.success]).toEqual([true, false]);
    expect(refused.message).toMatch(/denied by policy "require-approval"/);
    expect(deleted).toEqual(['draft-1']);
  });

  it('LangChain tools made from a rendered prompt obey its policies', async () => {
    const { rendered, session, deleted, approval } = fixture();
    const [tool] = toLangChainTools(rendered, { session, approval });
    expect(await tool?.invoke({ id: 'draft-1' })).toBe('deleted draft-1');
    expect(await tool?.invoke({ id: 'contract' })).toBe(
      'tool "delete_note" was denied by policy "require-approval": approval was refused',
    );
    expect(deleted).toEqual(['draft-1']);
  });

  it('a plain list of tools carries no policies', async () => {
    const { rendered, session, deleted } = fixture();
    const result = await invokeFromAnthropic(
      [...rendered.tools],
      { name: 'delete_note', input: { id: 'contract' } },
      { session },
    );
    expect(result.success).toBe(true);
    expect(deleted).toEqual(['contract']);
  });
});
