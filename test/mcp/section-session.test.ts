/**
 * A section's tools run only in the section's own session: the ratchet
 * reads that session's private data, so a call made in another session
 * (a template built once and evaluated for many users) would send one
 * user's private data through a tool the ratchet blocks for them, and
 * escalate the wrong session. Such a call is refused before the server
 * hears of it, and such a render throws.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  McpIntegrationSection,
  Prompt,
  PromptRenderError,
  PromptTemplate,
  Session,
  ToolInvoked,
  invokeTool,
} from '../../src/index.js';
import { PRIVATE_DATA_META_KEY } from '../../src/core/sensitivity.js';
import { rawToolServer } from '../support/mcp-fixtures.js';

const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

async function sectionOf(session: Session, summary = false) {
  const raw = rawToolServer([
    { name: 'post', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    {
      name: 'load',
      inputSchema: { type: 'object' },
      annotations: { openWorldHint: false },
      handler: () => ({
        content: [{ type: 'text', text: 'records' }],
        _meta: { [PRIVATE_DATA_META_KEY]: { dataset: 'patients', sensitivity: 'secret' } },
      }),
    },
  ]);
  const section = new McpIntegrationSection({
    servers: [{ name: 'web', transport: { type: 'in-memory', server: raw.server } }],
    session,
    ...(summary ? { visibility: 'summary' as const } : {}),
  });
  sections.push(section);
  await section.connect();
  const tool = (name: string) => {
    const found = section.tools().find((candidate) => candidate.name === name);
    if (found === undefined) throw new Error(`no tool ${name}`);
    return found;
  };
  return { section, raw, tool };
}

describe('a section used with a session that is not its own', () => {
  it('refuses the call, names the caller’s session only, and the server never hears of it', async () => {
    const own = new Session({ sessionId: 'built-with' });
    const other = new Session({ sessionId: 'user-b' });
    other.privateData.add('records', 'secret');
    const { raw, tool } = await sectionOf(own);
    const seen: unknown[] = [];
    other.bus.subscribe(ToolInvoked, (event) => seen.push(event.result.success));

    const result = await invokeTool(tool('web_post'), { text: 'patient 42' }, { session: other });

    expect(result.success).toBe(false);
    // The caller's own session is named; the section's, another user's, is not.
    expect(result.message).toContain('belongs to a section of another session');
    expect(result.message).toContain('session "user-b"');
    expect(result.message).not.toContain('built-with');
    expect(raw.callsTo('post')).toHaveLength(0);
    expect(seen).toEqual([false]);
  });

  it('does not escalate the section’s session, nor the caller’s, by a call it refused', async () => {
    const own = new Session({ sessionId: 'built-with' });
    const other = new Session({ sessionId: 'user-c' });
    const { raw, tool } = await sectionOf(own);

    const result = await invokeTool(tool('web_load'), {}, { session: other });

    expect(result.success).toBe(false);
    expect(raw.callsTo('load')).toHaveLength(0);
    expect(own.privateData.sensitivity).toBe('public');
    expect(other.privateData.sensitivity).toBe('public');
  });

  it('still runs the call in its own session', async () => {
    const own = new Session();
    const { raw, tool } = await sectionOf(own);
    const result = await invokeTool(tool('web_load'), {}, { session: own });
    expect(result.success).toBe(true);
    expect(raw.callsTo('load')).toHaveLength(1);
    expect(own.privateData.sensitivity).toBe('secret');
  });

  it('refuses to render for another session', async () => {
    const own = new Session({ sessionId: 'built-with' });
    const { section } = await sectionOf(own);
    const prompt = new Prompt(
      PromptTemplate.create({ ns: 'test', key: 'mcp', sections: [section] }),
    );
    expect(() => prompt.render({ session: new Session({ sessionId: 'user-d' }) })).toThrow(
      PromptRenderError,
    );
    expect(() => prompt.render({ session: new Session({ sessionId: 'user-d' }) })).toThrow(
      /belongs to session "built-with" and cannot be rendered for session "user-d"/,
    );
    expect(prompt.render({ session: own }).tools.map((tool) => tool.name)).toContain('web_post');
    expect(prompt.render().tools.map((tool) => tool.name)).toContain('web_post');
  });

  it('refuses to render it summarized for another session too', async () => {
    const own = new Session({ sessionId: 'built-with' });
    const { section } = await sectionOf(own, true);
    const prompt = new Prompt(
      PromptTemplate.create({ ns: 'test', key: 'mcp', sections: [section] }),
    );
    expect(() => prompt.render({ session: new Session({ sessionId: 'user-e' }) })).toThrow(
      /belongs to session "built-with" and cannot be rendered for session "user-e"/,
    );
    expect(() => prompt.render({ session: own })).not.toThrow();
  });
});
