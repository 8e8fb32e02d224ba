/**
 * The prompt features of issue 17 together on one MCP section, the way an
 * agent meets them: a summarized section opened server by server, a
 * description override on a bridged tool, and policies of the section and
 * the template. Opening a server must bring its tools in with their
 * policies and overrides, never around them.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  McpIntegrationSection,
  PolicyDecision,
  Prompt,
  PromptTemplate,
  Session,
  ToolInvoked,
  contentHash,
  invokeFromOpenAI,
  requireApproval,
  type PromptOverrides,
  type RenderedPrompt,
} from '../../src/index.js';

/** An in-process server whose tools record each call. */
function server(name: string, tools: readonly string[], calls: string[]): McpServer {
  const mcp = new McpServer({ name, version: '1.0.0' });
  for (const tool of tools) {
    mcp.registerTool(
      tool,
      {
        description: `${tool} on ${name}`,
        inputSchema: { q: z.string() },
        annotations: { openWorldHint: false },
      },
      ({ q }) => {
        calls.push(`${name}.${tool}`);
        return { content: [{ type: 'text', text: `${tool}: ${q}` }] };
      },
    );
  }
  return mcp;
}

/** A model's call of `name`, as OpenAI hands it over; the approval handler says no. */
function modelCall(rendered: RenderedPrompt, session: Session, name: string, args: unknown) {
  return invokeFromOpenAI(
    rendered,
    { id: `call-${name}`, type: 'function', function: { name, arguments: JSON.stringify(args) } },
    { session, approval: () => 'deny' },
  );
}

function call(rendered: RenderedPrompt, session: Session, name: string) {
  return modelCall(rendered, session, name, { q: 'x' });
}

describe('disclosure, overrides and policies on one MCP section', () => {
  it("offers an opened server's tools with their section's and template's policies and their overridden descriptions", async () => {
    const session = new Session();
    const calls: string[] = [];
    const section = new McpIntegrationSection({
      key: 'mcp',
      servers: [
        {
          name: 'bank',
          transport: { type: 'in-memory', server: server('bank', ['pay', 'balance'], calls) },
        },
        {
          name: 'docs',
          transport: { type: 'in-memory', server: server('docs', ['search'], calls) },
        },
      ],
      session,
      visibility: 'summary',
      acceptsOverrides: true,
      policies: [requireApproval({ tools: ['pay'], reason: 'money leaves' })],
    });
    await section.connect();
    try {
      const noSearchTwice = {
        name: 'one-search',
        check: (tool: { name: string }) =>
          tool.name === 'docs_search' && calls.includes('docs.search')
            ? PolicyDecision.deny('one search per session')
            : PolicyDecision.allow(),
      };
      const template = PromptTemplate.create({
        ns: 'agent',
        key: 'bank',
        sections: [section],
        policies: [noSearchTwice],
      });
      const overrides: PromptOverrides = {
        ns: 'agent',
        key: 'bank',
        tag: 'latest',
        sections: {},
        tools: {
          bank_balance: {
            expectedHash: contentHash('balance on bank'),
            description: 'Reads the balance; call it before paying',
          },
        },
      };
      const prompt = new Prompt(template, { overrides });
      const denials: (string | undefined)[] = [];
      session.bus.subscribe(ToolInvoked, (event) => denials.push(event.denial?.policy));

      // Summarized: no server tool is offered, so none can be called by name.
      const first = prompt.render({ session });
      expect(first.tools.map((tool) => tool.name)).toEqual(['open_sections']);
      expect((await call(first, session, 'bank_pay')).success).toBe(false);
      expect(calls).toEqual([]);

      // Open the bank: its tools come in, with the override and the policies.
      const opened = await modelCall(first, session, 'open_sections', {
        section_keys: ['mcp.bank'],
        reason: 'pay rent',
      });
      expect(opened.success).toBe(true);
      const second = prompt.render({ session });
      expect(second.tools.map((tool) => tool.name)).toEqual([
        'bank_pay',
        'bank_balance',
        'open_sections',
      ]);
      const balance = second.toolDefinitions().find((tool) => tool.name === 'bank_balance');
      expect(balance?.description).toBe('Reads the balance; call it before paying');
      expect(second.policiesFor('bank_pay').map((policy) => policy.name)).toEqual([
        'require-approval',
        'one-search',
      ]);
      // The section's approval policy asks; the handler says no; the server never sees it.
      const pay = await call(second, session, 'bank_pay');
      expect(pay).toMatchObject({ success: false });
      expect(pay.message).toContain('require-approval');
      expect((await call(second, session, 'bank_balance')).success).toBe(true);
      expect(calls).toEqual(['bank.balance']);

      // The docs server, opened later, gets the template's policy too.
      await modelCall(second, session, 'open_sections', {
        section_keys: ['mcp.docs'],
        reason: 'look it up',
      });
      const third = prompt.render({ session });
      expect((await call(third, session, 'docs_search')).success).toBe(true);
      expect((await call(third, session, 'docs_search')).message).toContain(
        'one search per session',
      );
      expect(calls).toEqual(['bank.balance', 'docs.search']);
      expect(denials.filter((policy) => policy !== undefined)).toEqual([
        'require-approval',
        'one-search',
      ]);
    } finally {
      await section.disconnect();
    }
  });
});
