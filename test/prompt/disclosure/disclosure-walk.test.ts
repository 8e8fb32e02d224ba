/**
 * How a render shows a section that may be summarized: its summary and a
 * hint (which tool opens it, with which key), its children and tools
 * hidden; in full once opened or when its visibility function says so.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MarkdownSection,
  OPENED_SECTIONS_SLICE,
  Prompt,
  PromptRenderError,
  PromptTemplate,
  Session,
  Tool,
  ToolResult,
  type OpenedSections,
  type Section,
} from '../../../src/index.js';

function tool(name: string): Tool {
  return Tool.create({
    name,
    description: `The ${name} tool`,
    params: z.object({}),
    handler: () => ToolResult.ok(null),
  });
}

function prompt(sections: readonly Section[]): Prompt {
  return new Prompt(PromptTemplate.create({ ns: 'test', key: 'walk', sections }));
}

/** Marks `keys` opened for the prompt test/walk, as `open_sections` would. */
function open(session: Session, ...keys: string[]): void {
  session.slice<OpenedSections>(OPENED_SECTIONS_SLICE).update((draft) => {
    for (const key of keys) draft[`test/walk#${key}`] = 1;
  });
}

const Topic = z.object({ topic: z.string(), detailed: z.boolean().default(false) });

function reference(visibility: 'summary' | 'full' = 'summary'): MarkdownSection {
  return new MarkdownSection({
    key: 'reference',
    title: 'Reference',
    template: 'The whole reference.',
    summary: 'A reference exists.',
    visibility,
    children: [new MarkdownSection({ key: 'appendix', title: 'Appendix', template: 'More.' })],
  });
}

describe('summarized sections', () => {
  it('show the summary and a read_section hint; children are hidden', () => {
    const rendered = prompt([
      new MarkdownSection({ key: 'intro', title: 'Intro', template: 'Hello.' }),
      reference(),
      new MarkdownSection({ key: 'task', title: 'Task', template: 'Work.' }),
    ]).render();
    expect(rendered.text).toBe(
      [
        '## 1. Intro (intro)',
        '',
        'Hello.',
        '',
        '## 2. Reference (reference)',
        '',
        'A reference exists.',
        '',
        '---',
        '[Summary only. Call `read_section` with key "reference" to read this section in full with its subsections (reference.appendix).]',
        '',
        '## 3. Task (task)',
        '',
        'Work.',
      ].join('\n'),
    );
    expect(rendered.tools.map((t) => t.name)).toEqual(['read_section']);
  });

  it('hide the tools of the section and its subtree, and offer open_sections instead', () => {
    const rendered = prompt([
      new MarkdownSection({
        key: 'math',
        title: 'Math',
        template: 'Use the calculator.',
        summary: 'Arithmetic is available.',
        visibility: 'summary',
        children: [
          new MarkdownSection({
            key: 'adv',
            title: 'Advanced',
            template: 'x',
            tools: [tool('pow')],
          }),
        ],
      }),
      new MarkdownSection({ key: 'other', title: 'Other', template: 'y', tools: [tool('echo')] }),
    ]).render();
    expect(rendered.text).toContain(
      'Arithmetic is available.\n\n---\n[Summary only. Call `open_sections` with key "math" to show this section in full with its subsections (math.adv) and to offer its tools.]',
    );
    expect(rendered.text).not.toContain('Advanced');
    expect(rendered.tools.map((t) => t.name)).toEqual(['echo', 'open_sections']);
  });

  it('fill summary placeholders from the params, like the template', () => {
    const section = new MarkdownSection({
      key: 'notes',
      title: 'Notes',
      params: Topic,
      template: 'All notes on ${topic}.',
      summary: 'Notes on ${topic} exist.',
      visibility: 'summary',
    });
    const text = prompt([section]).bind(Topic, { topic: 'rust' }).render().text;
    expect(text).toContain('Notes on rust exist.');
    expect(text).not.toContain('All notes');
  });

  it('render in full, children and tools included, once opened in the session', () => {
    const session = new Session();
    const p = prompt([reference()]);
    expect(p.render({ session }).text).not.toContain('The whole reference.');
    open(session, 'reference');
    const rendered = p.render({ session });
    expect(rendered.text).toBe(
      '## 1. Reference (reference)\n\nThe whole reference.\n\n### 1.1. Appendix (reference.appendix)\n\nMore.',
    );
    expect(rendered.tools).toEqual([]);
  });

  it('follow a visibility function of the params and the session, re-asked at each render', () => {
    const seen: unknown[] = [];
    const section = new MarkdownSection({
      key: 'notes',
      title: 'Notes',
      params: Topic,
      template: 'All notes on ${topic}.',
      summary: 'Notes exist.',
      visibility: (params, { session }) => {
        seen.push(session?.sessionId);
        return params.detailed ? 'full' : 'summary';
      },
    });
    const session = new Session({ sessionId: 's-1' });
    const p = prompt([section]).bind(Topic, { topic: 'go' });
    expect(p.render({ session }).text).toContain('Notes exist.');
    p.bind(Topic, { topic: 'go', detailed: true });
    const rendered = p.render({ session });
    expect(rendered.text).toContain('All notes on go.');
    expect(rendered.tools).toEqual([]);
    expect(seen).toEqual(['s-1', 's-1']);
  });

  it('are not summarized with visibility "full", and need no summary then', () => {
    const section = new MarkdownSection({
      key: 'plain',
      title: 'Plain',
      template: 'Everything.',
      visibility: 'full',
    });
    expect(section.summarizable).toBe(false);
    expect(prompt([section]).render().text).toBe('## 1. Plain (plain)\n\nEverything.');
  });

  it('refuse a visibility function that returns something else', () => {
    const section = new MarkdownSection({
      key: 'odd',
      title: 'Odd',
      template: 'x',
      summary: 's',
      visibility: () => 'hidden' as 'full',
    });
    const p = prompt([section]);
    expect(() => p.render()).toThrow(PromptRenderError);
    expect(() => p.render()).toThrow(
      `section "odd": the visibility function returned "hidden"; expected 'full' or 'summary'`,
    );
  });

  it('are numbered like any section, and the sections after them too', () => {
    const text = prompt([
      new MarkdownSection({
        key: 'outer',
        title: 'Outer',
        template: 'o',
        children: [
          reference(),
          new MarkdownSection({ key: 'after', title: 'After', template: 'a' }),
        ],
      }),
    ]).render().text;
    expect(text).toContain('### 1.1. Reference (outer.reference)\n\nA reference exists.');
    expect(text).toContain(
      'Call `read_section` with key "outer.reference" to read this section in full with its subsections (outer.reference.appendix).',
    );
    expect(text).toContain('### 1.2. After (outer.after)');
  });
});
