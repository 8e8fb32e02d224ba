import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  FileSessionStore,
  PolicyDecision,
  PromptValidationError,
  Session,
  Tool,
  ToolInvoked,
  ToolResult,
  denyAfterEscalation,
  invokeTool,
  requireApproval,
  type DataSensitivity,
  type ToolPolicy,
} from '../../../src/index.js';
import { tempDir } from '../../support/mcp-fixtures.js';

function tool(name: string, runs: string[]): Tool {
  return Tool.create({
    name,
    description: 'Does one thing',
    params: z.object({}),
    handler: () => {
      runs.push(name);
      return ToolResult.ok(null);
    },
  });
}

describe('denyAfterEscalation', () => {
  it('refuses a call whose session escalated while a person was approving it', async () => {
    const session = new Session();
    const runs: string[] = [];
    const policies = [denyAfterEscalation(), requireApproval()];
    const email = tool('send_email', runs);
    const result = await invokeTool(
      email,
      {},
      {
        session,
        policies,
        // Meanwhile a parallel call reads private data; then the person says yes.
        approval: () => {
          session.privateData.add('hr-records', 'internal');
          return 'approve';
        },
      },
    );
    expect(result.message).toMatch(
      /^tool "send_email" was denied by policy "deny-after-escalation"/,
    );
    expect(runs).toEqual([]);
  });

  it('refuses a call whose session escalated while another policy was still checking', async () => {
    const session = new Session();
    const runs: string[] = [];
    const slow: ToolPolicy = {
      name: 'slow',
      check: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        session.privateData.add('hr-records', 'internal');
        return PolicyDecision.allow();
      },
    };
    const result = await invokeTool(
      tool('send_email', runs),
      {},
      {
        session,
        policies: [denyAfterEscalation(), slow],
      },
    );
    expect(result.message).toMatch(
      /^tool "send_email" was denied by policy "deny-after-escalation"/,
    );
    expect(runs).toEqual([]);
  });

  it('lets every tool run until the session holds private data, then refuses them', async () => {
    const session = new Session();
    const runs: string[] = [];
    const events: ToolInvoked[] = [];
    session.bus.subscribe(ToolInvoked, (event) => events.push(event));
    const policies = [denyAfterEscalation()];
    const email = tool('send_email', runs);

    expect((await invokeTool(email, {}, { session, policies })).success).toBe(true);
    session.privateData.add('hr-records', 'internal');
    const refused = await invokeTool(email, {}, { session, policies });

    expect(refused.message).toBe(
      'tool "send_email" was denied by policy "deny-after-escalation": the session holds internal data (at or above "internal"), and tool "send_email" may not run after that',
    );
    expect(runs).toEqual(['send_email']);
    expect(events.map((event) => event.denial?.policy)).toEqual([
      undefined,
      'deny-after-escalation',
    ]);
  });

  it('starts at `at` and covers only `tools`', async () => {
    const session = new Session();
    const runs: string[] = [];
    const policies: ToolPolicy[] = [
      denyAfterEscalation({ tools: ['post_webhook'], at: 'confidential' }),
    ];
    const webhook = tool('post_webhook', runs);
    const notes = tool('write_note', runs);
    const levels: [DataSensitivity, boolean][] = [];
    for (const level of ['internal', 'confidential', 'secret'] as const) {
      session.privateData.add(`data-${level}`, level);
      levels.push([level, (await invokeTool(webhook, {}, { session, policies })).success]);
      await invokeTool(notes, {}, { session, policies });
    }
    expect(levels).toEqual([
      ['internal', true],
      ['confidential', false],
      ['secret', false],
    ]);
    expect(runs.filter((name) => name === 'write_note')).toHaveLength(3);
  });

  it('sees an escalation another worker stored for the same session', async () => {
    await using dir = await tempDir('deny-after-escalation');
    const store = new FileSessionStore({ directory: dir.path });
    const here = await Session.open({ sessionId: 'conv-9', store });
    const there = await Session.open({ sessionId: 'conv-9', store });
    there.privateData.add('payroll', 'secret');
    await there.flush();

    const runs: string[] = [];
    const refused = await invokeTool(
      tool('send_email', runs),
      {},
      {
        session: here,
        policies: [denyAfterEscalation()],
      },
    );
    expect(refused.message).toMatch(/the session holds secret data/);
    expect(runs).toEqual([]);
  });

  it.each<[string, Parameters<typeof denyAfterEscalation>[0], string]>([
    [
      'an unknown level',
      { at: 'private' as DataSensitivity },
      'denyAfterEscalation "deny-after-escalation": at "private" must be one of public, internal, confidential, secret',
    ],
    ['a bad name', { name: '' }, 'denyAfterEscalation: name "" must match'],
    [
      'a bad tool list',
      { tools: 'send_email' as never },
      'denyAfterEscalation "deny-after-escalation": tools must be an array of tool names or a function of the tool, received string',
    ],
  ])('refuses %s', (_label, options, message) => {
    expect(() => denyAfterEscalation(options)).toThrow(PromptValidationError);
    expect(() => denyAfterEscalation(options)).toThrow(message);
  });
});
