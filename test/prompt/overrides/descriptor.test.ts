import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MarkdownSection,
  Prompt,
  PromptOverrideRefused,
  PromptTemplate,
  Section,
  Session,
  Tool,
  ToolResult,
  contentHash,
  describePrompt,
  parsePromptOverrides,
  seedPromptOverrides,
} from '../../../src/index.js';
import { recordEvents } from '../../support/mcp-fixtures.js';

/** A section whose body is computed, with no template an override could replace. */
class ClockSection extends Section<undefined> {
  constructor() {
    super({ key: 'clock', title: 'Clock', acceptsOverrides: true });
  }
  override renderBody(): string {
    return 'It is noon.';
  }
}

const tool = (name: string, description: string): Tool =>
  Tool.create({ name, description, params: z.object({}), handler: () => ToolResult.ok(null) });

function template(): PromptTemplate {
  return PromptTemplate.create({
    ns: 'demo',
    key: 'welcome',
    sections: [
      new MarkdownSection({
        key: 'task',
        title: 'Task',
        template: `
          Find papers.
            Then summarise.
        `,
        acceptsOverrides: true,
        tools: [tool('search', 'Searches the index')],
        children: [
          new MarkdownSection({
            key: 'style',
            title: 'Style',
            template: 'Be brief.',
            acceptsOverrides: true,
          }),
          new MarkdownSection({
            key: 'locked',
            title: 'Locked',
            template: 'Stay.',
            tools: [tool('wipe', 'Wipes')],
          }),
        ],
      }),
      new ClockSection(),
    ],
  });
}

describe('describePrompt', () => {
  it('lists the sections that accept overrides and have a template, and their tools, in tree order', () => {
    const descriptor = describePrompt(template());
    expect(descriptor).toEqual({
      ns: 'demo',
      key: 'welcome',
      sections: [
        {
          path: 'task',
          contentHash: contentHash('Find papers.\n  Then summarise.'),
          body: 'Find papers.\n  Then summarise.',
        },
        { path: 'task.style', contentHash: contentHash('Be brief.'), body: 'Be brief.' },
      ],
      tools: [
        {
          name: 'search',
          path: 'task',
          descriptionHash: contentHash('Searches the index'),
          description: 'Searches the index',
        },
      ],
    });
    expect(Object.isFrozen(descriptor.sections[0])).toBe(true);
  });
});

describe('seedPromptOverrides', () => {
  it('replaces each overridable text with itself, under the tag asked for', () => {
    const seed = seedPromptOverrides(template(), { tag: 'v1' });
    expect(seed.tag).toBe('v1');
    expect(Object.keys(seed.sections)).toEqual(['task', 'task.style']);
    expect(seed.sections['task.style']).toEqual({
      expectedHash: contentHash('Be brief.'),
      body: 'Be brief.',
    });
    expect(Object.keys(seed.tools)).toEqual(['search']);
    expect(seedPromptOverrides(template()).tag).toBe('latest');
  });

  it('refuses a tag that breaks the key rule', () => {
    expect(() => seedPromptOverrides(template(), { tag: '../up' })).toThrow(
      'overrides tag "../up" must match',
    );
  });

  it('leaves out a body without a template, which an override is refused for', () => {
    const session = new Session();
    const events = recordEvents(session);
    const overrides = parsePromptOverrides({
      ns: 'demo',
      key: 'welcome',
      tag: 'latest',
      sections: { clock: { expectedHash: contentHash('It is noon.'), body: 'It is midnight.' } },
    });
    const text = new Prompt(template(), { overrides }).render({ session }).text;
    expect(text).toContain('It is noon.');
    expect(events.of(PromptOverrideRefused)).toEqual([
      expect.objectContaining({ path: 'clock', reason: 'section "clock" has no body template' }),
    ]);
  });
});
