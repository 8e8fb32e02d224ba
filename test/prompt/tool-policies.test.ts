/**
 * Which policies a rendered prompt gives each tool: its own section's,
 * then the template's; a parent's policies do not reach a child's tools.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MarkdownSection,
  PolicyDecision,
  Prompt,
  PromptTemplate,
  Tool,
  ToolResult,
  Session,
  type ToolPolicy,
} from '../../src/index.js';
import { invokeByName } from '../../src/ecosystem/tool-source.js';

function tool(name: string): Tool {
  return Tool.create({
    name,
    description: 'A tool',
    params: z.object({}),
    handler: () => ToolResult.ok(null),
  });
}

function policy(name: string): ToolPolicy {
  return { name, check: () => PolicyDecision.allow() };
}

const Flags = z.object({ admin: z.boolean().default(false) });

describe('RenderedPrompt.policiesFor', () => {
  const parentPolicy = policy('parent-rule');
  const childPolicy = policy('child-rule');
  const promptPolicy = policy('prompt-rule');

  function prompt(templatePolicies: ToolPolicy[]): Prompt {
    const child = new MarkdownSection({
      key: 'child',
      title: 'Child',
      template: 'child',
      tools: [tool('child_tool')],
      policies: [childPolicy],
    });
    const bare = new MarkdownSection({
      key: 'bare',
      title: 'Bare',
      template: 'bare',
      tools: [tool('bare_tool')],
    });
    const admin = new MarkdownSection({
      key: 'admin',
      title: 'Admin',
      template: 'admin',
      params: Flags,
      enabled: (params) => params.admin,
      tools: [tool('admin_tool')],
      policies: [parentPolicy],
    });
    const parent = new MarkdownSection({
      key: 'parent',
      title: 'Parent',
      template: 'parent',
      tools: [tool('parent_tool')],
      policies: [parentPolicy],
      children: [child, bare],
    });
    return new Prompt(
      PromptTemplate.create({
        ns: 'agent',
        key: 'main',
        sections: [parent, admin],
        policies: templatePolicies,
      }),
    );
  }

  it('gives each tool its section’s policies, then the template’s', () => {
    const rendered = prompt([promptPolicy]).render();
    expect(rendered.policiesFor('parent_tool')).toEqual([parentPolicy, promptPolicy]);
    expect(rendered.policiesFor('child_tool')).toEqual([childPolicy, promptPolicy]);
    // The parent's rule does not reach its children's tools.
    expect(rendered.policiesFor('bare_tool')).toEqual([promptPolicy]);
  });

  it('gives nothing for a tool the prompt does not offer, or offers no longer', () => {
    const rendered = prompt([promptPolicy]).render();
    expect(rendered.policiesFor('admin_tool')).toEqual([]);
    expect(rendered.policiesFor('no_such_tool')).toEqual([]);
    const withAdmin = prompt([promptPolicy]).bind(Flags, { admin: true }).render();
    expect(withAdmin.policiesFor('admin_tool')).toEqual([parentPolicy, promptPolicy]);
  });

  it('without template policies, a section’s own list is given as it is', () => {
    const rendered = prompt([]).render();
    expect(rendered.policiesFor('parent_tool')).toEqual([parentPolicy]);
    expect(rendered.policiesFor('bare_tool')).toEqual([]);
    expect(Object.isFrozen(rendered.policiesFor('parent_tool'))).toBe(true);
  });

  it('a prompt with no policies anywhere gives none', () => {
    const section = new MarkdownSection({
      key: 'plain',
      title: 'Plain',
      template: 'plain',
      tools: [tool('plain_tool')],
    });
    const rendered = new Prompt(
      PromptTemplate.create({ ns: 'agent', key: 'plain', sections: [section] }),
    ).render();
    expect(rendered.policiesFor('plain_tool')).toEqual([]);
  });

  it('an unchanged prompt renders the same lists again', () => {
    const bound = prompt([promptPolicy]);
    const first = bound.render().policiesFor('child_tool');
    expect(bound.render().policiesFor('child_tool')).toBe(first);
  });
});

describe('the disclosure tools', () => {
  it("are governed by no policy, not even the template's: they only read the prompt", async () => {
    const denyAll: ToolPolicy = { name: 'deny-all', check: () => PolicyDecision.deny('no') };
    const template = PromptTemplate.create({
      ns: 'policies',
      key: 'disclosure',
      policies: [denyAll],
      sections: [
        new MarkdownSection({
          key: 'math',
          title: 'Math',
          template: 'Use pow for powers.',
          summary: 'Math tools exist.',
          visibility: 'summary',
          tools: [tool('pow')],
        }),
      ],
    });
    const session = new Session();
    const rendered = new Prompt(template).render({ session });
    expect(rendered.policiesFor('open_sections')).toEqual([]);
    expect(rendered.policiesFor('read_section')).toEqual([]);
    const opened = await invokeByName(
      rendered,
      'open_sections',
      { section_keys: ['math'], reason: 'to use pow' },
      { session },
    );
    expect(opened.success).toBe(true);
    const next = new Prompt(template).render({ session });
    expect(next.tools.map((t) => t.name)).toContain('pow');
    expect(next.policiesFor('pow').map((p) => p.name)).toEqual(['deny-all']);
  });
});
