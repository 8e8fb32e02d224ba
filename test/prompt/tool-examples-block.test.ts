/**
 * The "Tools:" block: a section whose tools have examples shows them after
 * its body, in weakincentives' layout. The golden text below is what the
 * model reads.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MarkdownSection, Prompt, PromptTemplate, Tool, ToolResult } from '../../src/index.js';

const search = Tool.create({
  name: 'search_docs',
  description: 'Searches the documentation',
  params: z.object({ query: z.string(), limit: z.number().int().default(5) }),
  handler: () => ToolResult.ok([]),
  examples: [
    {
      description: 'Find pages about sessions',
      input: { query: 'session store', limit: 2 },
      output: [{ title: 'Sessions', path: 'docs/sessions.md' }],
    },
    {
      description: 'Nothing found',
      input: { query: 'käse' },
      output: 'No page matches "käse".\nTry a shorter query.',
    },
  ],
});

const plain = Tool.create({
  name: 'list_pages',
  description: 'Lists every page',
  params: z.object({}),
  handler: () => ToolResult.ok([]),
});

const ping = Tool.create({
  name: 'ping',
  description: 'Answers pong',
  params: z.object({}),
  handler: () => ToolResult.ok(null),
  examples: [{ description: 'Nothing to say', input: {}, output: null }],
});

function render(section: MarkdownSection): string {
  const template = PromptTemplate.create({ ns: 'test', key: 'tools', sections: [section] });
  return new Prompt(template).render().text;
}

describe('tool examples in the prompt text', () => {
  it('renders the "Tools:" block after the body, only for tools that have examples', () => {
    const text = render(
      new MarkdownSection({
        key: 'docs',
        title: 'Documentation',
        template: 'Answer from the documentation.',
        tools: [plain, search, ping],
      }),
    );
    expect(text).toBe(
      [
        '## 1. Documentation (docs)',
        '',
        'Answer from the documentation.',
        '',
        'Tools:',
        '- search_docs: Searches the documentation',
        '  - search_docs examples:',
        '    - description: Find pages about sessions',
        '      input:',
        '        ```json',
        '        {"query": "session store", "limit": 2}',
        '        ```',
        '      output:',
        '        ```',
        '        [{"title": "Sessions", "path": "docs/sessions.md"}]',
        '        ```',
        '    - description: Nothing found',
        '      input:',
        '        ```json',
        '        {"query": "käse"}',
        '        ```',
        '      output:',
        '        ```',
        '        No page matches "käse".',
        '        Try a shorter query.',
        '        ```',
        '- ping: Answers pong',
        '  - ping examples:',
        '    - description: Nothing to say',
        '      input:',
        '        ```json',
        '        {}',
        '        ```',
        '      output:',
        '        ```',
        '        null',
        '        ```',
      ].join('\n'),
    );
  });

  it('adds nothing for tools without examples, and the block alone for an empty body', () => {
    expect(
      render(new MarkdownSection({ key: 'a', title: 'A', template: 'Body.', tools: [plain] })),
    ).toBe('## 1. A (a)\n\nBody.');
    expect(render(new MarkdownSection({ key: 'a', title: 'A', template: '', tools: [ping] }))).toBe(
      '## 1. A (a)\n\nTools:\n- ping: Answers pong\n  - ping examples:\n' +
        '    - description: Nothing to say\n      input:\n        ```json\n        {}\n        ```\n' +
        '      output:\n        ```\n        null\n        ```',
    );
  });

  it('keeps a fence closed when the output itself holds a fence', () => {
    const fenced = Tool.create({
      name: 'snippet',
      description: 'Returns a code snippet',
      params: z.object({}),
      handler: () => ToolResult.ok(''),
      examples: [{ description: 'A snippet', input: {}, output: '```ts\nconst a = 1;\n```' }],
    });
    const text = render(
      new MarkdownSection({ key: 'a', title: 'A', template: 'Body.', tools: [fenced] }),
    );
    expect(text).toContain(
      '      output:\n        ````\n        ```ts\n        const a = 1;\n        ```\n        ````',
    );
  });
});
