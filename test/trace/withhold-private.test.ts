import { describe, expect, it } from 'vitest';
import {
  McpServerLog,
  McpToolProgress,
  PromptExecuted,
  PromptRendered,
  SensitivityEscalated,
  ToolInvoked,
} from '../../src/index.js';
import { WITHHELD_PRIVATE, withholdPrivate } from '../../src/trace/withhold-private.js';

const at = new Date(0);

describe('withholdPrivate', () => {
  it("leaves out the model's answer and what was parsed from it", () => {
    const kept = withholdPrivate(PromptExecuted.name, {
      ns: 'demo',
      key: 'ask',
      adapter: 'openai-chat',
      turns: 2,
      text: 'Ada earns 91k',
      output: { salary: '91k' },
      sessionId: 's',
      createdAt: at,
    });
    expect(kept).toEqual({
      ns: 'demo',
      key: 'ask',
      adapter: 'openai-chat',
      turns: 2,
      sessionId: 's',
      createdAt: at,
      withheld: WITHHELD_PRIVATE,
    });
  });

  it("leaves out a server's log and progress messages, keeping who and when", () => {
    const log = withholdPrivate(McpServerLog.name, {
      serverName: 'crm',
      level: 'info',
      message: 'fetched row Ada 91k',
      createdAt: at,
    });
    expect(log).toEqual({
      serverName: 'crm',
      level: 'info',
      createdAt: at,
      withheld: 'private-data',
    });
    const progress = withholdPrivate(McpToolProgress.name, {
      toolName: 'crm_get',
      progress: 1,
      message: 'read Ada',
    });
    expect(progress).toEqual({ toolName: 'crm_get', progress: 1, withheld: 'private-data' });
  });

  it("replaces a rendered prompt's text with a note, and a result with its outcome", () => {
    expect(withholdPrivate(PromptRendered.name, { key: 'k', text: 'Ada earns 91k' })).toEqual({
      key: 'k',
      text: expect.stringMatching(/^\[left out: the session held private data/) as unknown,
      withheld: 'private-data',
    });
    expect(
      withholdPrivate(ToolInvoked.name, {
        toolName: 't',
        result: { success: true, message: 'Ada earns 91k', value: 91 },
      }),
    ).toEqual({ toolName: 't', result: { success: true, withheld: 'private-data' } });
  });

  it("keeps only who and when of an event it does not know, such as an application's own", () => {
    const kept = withholdPrivate('CustomerLoaded', {
      sessionId: 's',
      callId: 'c',
      createdAt: at,
      customer: { name: 'Ada', salary: 91 },
    });
    expect(kept).toEqual({ sessionId: 's', callId: 'c', createdAt: at, withheld: 'private-data' });
  });

  it('keeps whole the events the library writes from names, levels and reasons', () => {
    const fields = { sessionId: 's', previous: 'public', sensitivity: 'secret', dataset: 'hr' };
    expect(withholdPrivate(SensitivityEscalated.name, fields)).toBe(fields);
  });
});
