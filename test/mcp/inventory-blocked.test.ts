/**
 * Once the session holds private data, the inventory marks the tools the
 * isolation ratchet refuses now: they stay offered (a call comes back
 * refused, saying why), and the mark saves the model the attempt. The
 * first render after the escalation shows it, though the one before was
 * kept for reuse.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpIntegrationSection, Prompt, PromptTemplate, Session } from '../../src/index.js';
import { BLOCKED_MARK } from '../../src/mcp/inventory.js';
import { rawToolServer } from '../support/mcp-fixtures.js';

const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

async function prompted(session: Session) {
  const raw = rawToolServer([
    { name: 'post', description: 'Posts text to a URL', inputSchema: { type: 'object' } },
    {
      name: 'load',
      description: 'Loads a record',
      inputSchema: { type: 'object' },
      annotations: { openWorldHint: false },
    },
  ]);
  const section = new McpIntegrationSection({
    servers: [{ name: 'crm', transport: { type: 'in-memory', server: raw.server } }],
    session,
  });
  sections.push(section);
  await section.connect();
  return new Prompt(PromptTemplate.create({ ns: 'test', key: 'blocked', sections: [section] }));
}

describe('the inventory after an escalation', () => {
  it('marks the tools the ratchet refuses now, and only after the escalation', async () => {
    const session = new Session();
    const prompt = await prompted(session);
    const before = prompt.render({ session });
    expect(before.text).not.toContain(BLOCKED_MARK);
    expect(before.text).toContain('- `crm_post` - Posts text to a URL');

    session.privateData.add('customers', 'confidential');
    const after = prompt.render({ session });
    expect(after.text).toContain(`- \`crm_post\` - ${BLOCKED_MARK} Posts text to a URL`);
    expect(after.text).toContain('- `crm_load` - Loads a record');
    // Still offered: a call comes back refused with the reason.
    expect(after.tools.map((tool) => tool.name).sort()).toEqual(['crm_load', 'crm_post']);
  });
});
