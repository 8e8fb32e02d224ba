/**
 * What `PromptTemplate.create` checks about disclosure: a section that may
 * be summarized has a summary, and no tool takes a disclosure tool's name.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MarkdownSection,
  PromptTemplate,
  PromptValidationError,
  Tool,
  ToolResult,
  type Section,
} from '../../../src/index.js';

function create(sections: readonly Section[]): PromptTemplate {
  return PromptTemplate.create({ ns: 'test', key: 'checks', sections });
}

function tool(name: string): Tool {
  return Tool.create({
    name,
    description: `The ${name} tool`,
    params: z.object({}),
    handler: () => ToolResult.ok(null),
  });
}

describe('disclosure checks at creation', () => {
  it.each([
    ['summary', 'summary' as const],
    ['a function', () => 'full' as const],
  ])('refuse a section whose visibility is %s but that has no summary', (_case, visibility) => {
    const child = new MarkdownSection({ key: 'child', title: 'Child', template: 'x', visibility });
    const parent = new MarkdownSection({
      key: 'parent',
      title: 'P',
      template: 'y',
      children: [child],
    });
    expect(() => create([parent])).toThrow(PromptValidationError);
    expect(() => create([parent])).toThrow(
      `section "parent.child" may be summarized (visibility is 'summary' or a function) but has no summary; give it a summary text`,
    );
  });

  it('reserve the disclosure tool names in a prompt that may summarize', () => {
    const summarized = new MarkdownSection({
      key: 'ref',
      title: 'Ref',
      template: 'x',
      summary: 's',
      visibility: 'summary',
    });
    const own = new MarkdownSection({
      key: 'own',
      title: 'Own',
      template: 'y',
      tools: [tool('read_section')],
    });
    expect(() => create([summarized, own])).toThrow(
      'tool name "read_section" (section "own") is reserved for progressive disclosure in a prompt whose sections may be summarized',
    );
    // Nothing is summarized, so nothing is reserved.
    expect(create([own]).sections).toHaveLength(1);
  });

  it('name a summary placeholder that is not a params field', () => {
    const section = new MarkdownSection({
      key: 'notes',
      title: 'Notes',
      params: z.object({ topic: z.string() }),
      template: 'On ${topic}.',
      summary: 'Notes on ${subject}.',
      visibility: 'summary',
    });
    expect(() => create([section])).toThrow(
      'section "notes": summary placeholder "${subject}" names no params field (params fields: topic)',
    );
  });
});
