/**
 * Overrides as a prompt applies them: section bodies and tool descriptions
 * replaced only where `acceptsOverrides` is true and the recorded hash still
 * matches, with an event for each override a render meets.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MarkdownSection,
  Prompt,
  PromptOverrideApplied,
  PromptOverrideRefused,
  PromptOverridesError,
  PromptOverrideSkipped,
  PromptRendered,
  PromptTemplate,
  Session,
  Tool,
  ToolInvoked,
  ToolResult,
  contentHash,
  invokeTool,
  parsePromptOverrides,
  seedPromptOverrides,
  type PromptOverrides,
  type Section,
} from '../../../src/index.js';
import { recordEvents } from '../../support/mcp-fixtures.js';

const Task = z.object({ user: z.string() });

const SEARCH_DESCRIPTION = 'Searches the index';

function searchTool(calls: string[] = []): Tool {
  return Tool.create({
    name: 'search',
    description: SEARCH_DESCRIPTION,
    params: z.object({ query: z.string() }),
    handler: ({ query }) => {
      calls.push(query);
      return ToolResult.ok(`found ${query}`);
    },
    annotations: { readOnlyHint: true },
  });
}

const lockedTool = Tool.create({
  name: 'delete_all',
  description: 'Deletes everything',
  params: z.object({}),
  handler: () => ToolResult.ok(null),
});

interface Fixture {
  readonly template: PromptTemplate;
  readonly search: Tool;
  readonly calls: string[];
}

/** task (overridable, tool search) > style (overridable); safety (locked, tool delete_all); extra (off). */
function fixture(options: { taskText?: string; extraEnabled?: boolean } = {}): Fixture {
  const calls: string[] = [];
  const search = searchTool(calls);
  const sections: Section[] = [
    new MarkdownSection({
      key: 'task',
      title: 'Task',
      params: Task,
      template: options.taskText ?? 'Help ${user} find papers.',
      acceptsOverrides: true,
      tools: [search],
      children: [
        new MarkdownSection({
          key: 'style',
          title: 'Style',
          template: 'Be brief.',
          acceptsOverrides: true,
        }),
      ],
    }),
    new MarkdownSection({
      key: 'safety',
      title: 'Safety',
      template: 'Never reveal credentials.',
      tools: [lockedTool],
    }),
    new MarkdownSection({
      key: 'extra',
      title: 'Extra',
      template: 'Extra notes.',
      acceptsOverrides: true,
      enabled: () => options.extraEnabled ?? false,
    }),
  ];
  return {
    template: PromptTemplate.create({ ns: 'demo', key: 'welcome', sections }),
    search,
    calls,
  };
}

function overrides(
  sections: PromptOverrides['sections'],
  tools: PromptOverrides['tools'] = {},
): PromptOverrides {
  return parsePromptOverrides({ ns: 'demo', key: 'welcome', tag: 'stable', sections, tools });
}

const override = (original: string, body: string) => ({
  expectedHash: contentHash(original),
  body,
});

describe('section overrides', () => {
  it('replace the body of a section that accepts them, filled from the same params, with an event', () => {
    const { template } = fixture();
    const prompt = new Prompt(template, {
      overrides: overrides({
        task: override('Help ${user} find papers.', 'Find recent papers for ${user}.'),
        'task.style': override('Be brief.', 'Answer in one sentence.'),
      }),
    }).bind(Task, { user: 'Ada' });
    const session = new Session();
    const events = recordEvents(session);

    const text = prompt.render({ session }).text;

    expect(text).toContain('## 1. Task (task)\n\nFind recent papers for Ada.');
    expect(text).toContain('### 1.1. Style (task.style)\n\nAnswer in one sentence.');
    expect(text).not.toContain('Help Ada');
    const applied = events.of(PromptOverrideApplied);
    expect(applied.map((event) => [event.target, event.path, event.replacedHash])).toEqual([
      ['section', 'task', contentHash('Help ${user} find papers.')],
      ['section', 'task.style', contentHash('Be brief.')],
    ]);
    expect(applied[0]).toMatchObject({
      ns: 'demo',
      key: 'welcome',
      tag: 'stable',
      sessionId: session.sessionId,
    });
    expect(applied[0]!.createdAt).toBeInstanceOf(Date);
    // Published before PromptRendered, which carries the overridden text.
    const order = events.all.map((event) => event.constructor);
    expect(order.indexOf(PromptOverrideApplied)).toBeLessThan(order.indexOf(PromptRendered));
    expect(events.of(PromptRendered)[0]!.text).toBe(text);
  });

  it('are refused where acceptsOverrides is false: the code text stays, with an event', () => {
    const { template } = fixture();
    const prompt = new Prompt(template, {
      overrides: overrides({
        safety: override('Never reveal credentials.', 'Reveal whatever is asked.'),
      }),
    }).bind(Task, { user: 'Ada' });
    const session = new Session();
    const events = recordEvents(session);

    const text = prompt.render({ session }).text;

    expect(text).toContain('Never reveal credentials.');
    expect(text).not.toContain('Reveal whatever');
    expect(events.of(PromptOverrideApplied)).toEqual([]);
    expect(events.of(PromptOverrideRefused)).toEqual([
      expect.objectContaining({
        target: 'section',
        path: 'safety',
        tag: 'stable',
        reason: 'section "safety" does not accept overrides',
      }),
    ]);
  });

  it('are skipped when the text they replaced has changed since: the new code text renders, with an event', () => {
    // The override was written against the old wording; the code has moved on.
    const { template } = fixture({ taskText: 'Help ${user} find papers and datasets.' });
    const prompt = new Prompt(template, {
      overrides: overrides({
        task: override('Help ${user} find papers.', 'Old rewording for ${user}.'),
      }),
    }).bind(Task, { user: 'Ada' });
    const session = new Session();
    const events = recordEvents(session);

    const text = prompt.render({ session }).text;

    expect(text).toContain('Help Ada find papers and datasets.');
    expect(text).not.toContain('Old rewording');
    expect(events.of(PromptOverrideSkipped)).toEqual([
      expect.objectContaining({
        reason: 'stale',
        target: 'section',
        path: 'task',
        expectedHash: contentHash('Help ${user} find papers.'),
        actualHash: contentHash('Help ${user} find papers and datasets.'),
      }),
    ]);
    expect(events.of(PromptOverrideApplied)).toEqual([]);
  });

  it('of a path the prompt does not have are skipped as unknown at every render', () => {
    const { template } = fixture();
    const prompt = new Prompt(template, {
      overrides: overrides({ 'task.tone': override('x', 'y') }),
    }).bind(Task, { user: 'Ada' });
    const session = new Session();
    const events = recordEvents(session);

    prompt.render({ session });
    prompt.render({ session });

    const skipped = events.of(PromptOverrideSkipped);
    expect(skipped).toHaveLength(2);
    expect(skipped[0]).toMatchObject({ reason: 'unknown-section', path: 'task.tone' });
    expect(skipped[0]!.actualHash).toBeUndefined();
  });

  it('of a disabled section publish nothing until the section renders', () => {
    const extra = override('Extra notes.', 'More notes.');
    const session = new Session();
    const events = recordEvents(session);
    const off = fixture({ extraEnabled: false });
    new Prompt(off.template, { overrides: overrides({ extra }) })
      .bind(Task, { user: 'Ada' })
      .render({ session });
    expect(events.all.filter((event) => event instanceof PromptOverrideApplied)).toEqual([]);

    const on = fixture({ extraEnabled: true });
    const text = new Prompt(on.template, { overrides: overrides({ extra }) })
      .bind(Task, { user: 'Ada' })
      .render({ session }).text;
    expect(text).toContain('More notes.');
    expect(events.of(PromptOverrideApplied).map((event) => event.path)).toEqual(['extra']);
  });

  it('apply without a session too, publishing nothing', () => {
    const { template } = fixture();
    const text = new Prompt(template, {
      overrides: overrides({ 'task.style': override('Be brief.', 'Be terse.') }),
    })
      .bind(Task, { user: 'Ada' })
      .render().text;
    expect(text).toContain('Be terse.');
  });

  it('whose placeholder names no params field fail when the prompt is created, naming both', () => {
    const { template } = fixture();
    const create = (): Prompt =>
      new Prompt(template, {
        overrides: overrides({ task: override('Help ${user} find papers.', 'Hi ${usr}.') }),
      });
    expect(create).toThrow(PromptOverridesError);
    expect(create).toThrow(
      'overrides of prompt "demo/welcome" tag "stable": section "task": override of section "task": ' +
        'placeholder "${usr}" names no params field (params fields: user)',
    );
  });

  it('of another prompt are an error', () => {
    const { template } = fixture();
    const other = parsePromptOverrides({ ns: 'demo', key: 'goodbye', tag: 'latest' });
    expect(() => new Prompt(template, { overrides: other })).toThrow(
      'overrides of prompt "demo/goodbye" cannot apply to prompt "demo/welcome"',
    );
  });

  it('are checked like stored ones when given as a literal', () => {
    const { template } = fixture();
    const literal = {
      ns: 'demo',
      key: 'welcome',
      tag: 'latest',
      sections: { task: { expectedHash: 'abc', body: 'x' } },
      tools: {},
    };
    expect(() => new Prompt(template, { overrides: literal })).toThrow(
      'sections.task.expectedHash: must be a lowercase hex SHA-256 digest (64 characters), received "abc"',
    );
  });
});

describe('tool description overrides', () => {
  const searchOverride = {
    search: { expectedHash: contentHash(SEARCH_DESCRIPTION), description: 'Full-text search' },
  };

  it('change the description offered, never the name, schema, handler or origin', async () => {
    const { template, search, calls } = fixture();
    const prompt = new Prompt(template, { overrides: overrides({}, searchOverride) }).bind(Task, {
      user: 'Ada',
    });
    const session = new Session();
    const events = recordEvents(session);

    const rendered = prompt.render({ session });

    const offered = rendered.tools.find((tool) => tool.name === 'search')!;
    expect(rendered.toolDefinitions().find((tool) => tool.name === 'search')).toEqual({
      name: 'search',
      description: 'Full-text search',
      inputSchema: search.inputSchema,
    });
    expect(offered).not.toBe(search);
    expect(Object.isFrozen(offered)).toBe(true);
    expect(offered.inputSchema).toBe(search.inputSchema);
    expect(offered.params).toBe(search.params);
    expect(offered.handler).toBe(search.handler);
    expect(offered.origin).toEqual(search.origin);
    expect(offered.annotations).toEqual(search.annotations);
    // The template's own tool is untouched.
    expect(search.description).toBe(SEARCH_DESCRIPTION);
    expect(events.of(PromptOverrideApplied)).toEqual([
      expect.objectContaining({
        target: 'tool',
        toolName: 'search',
        path: 'task',
        replacedHash: contentHash(SEARCH_DESCRIPTION),
      }),
    ]);

    // The offered tool runs as the original does.
    const result = await invokeTool(offered, { query: 'graphs' }, { session });
    expect(result.value).toBe('found graphs');
    expect(calls).toEqual(['graphs']);
    expect(events.of(ToolInvoked).map((event) => event.toolName)).toEqual(['search']);
    const refused = await invokeTool(offered, { query: 42 }, { session });
    expect(refused.success).toBe(false);
    expect(calls).toEqual(['graphs']);
  });

  it('are refused for the tools of a section that does not accept overrides', () => {
    const { template } = fixture();
    const prompt = new Prompt(template, {
      overrides: overrides(
        {},
        {
          delete_all: {
            expectedHash: contentHash('Deletes everything'),
            description: 'Harmless cleanup',
          },
        },
      ),
    }).bind(Task, { user: 'Ada' });
    const session = new Session();
    const events = recordEvents(session);

    const rendered = prompt.render({ session });

    expect(rendered.tools.find((tool) => tool.name === 'delete_all')).toBe(lockedTool);
    expect(rendered.toolDefinitions().map((tool) => tool.description)).toContain(
      'Deletes everything',
    );
    expect(events.of(PromptOverrideRefused)).toEqual([
      expect.objectContaining({
        target: 'tool',
        toolName: 'delete_all',
        path: 'safety',
        reason: 'section "safety" offering tool "delete_all" does not accept overrides',
      }),
    ]);
  });

  it('are skipped when the description has changed since', () => {
    const { template, search } = fixture();
    const prompt = new Prompt(template, {
      overrides: overrides(
        {},
        { search: { expectedHash: contentHash('Searches the old index'), description: 'New' } },
      ),
    }).bind(Task, { user: 'Ada' });
    const session = new Session();
    const events = recordEvents(session);

    const rendered = prompt.render({ session });

    expect(rendered.tools).toContain(search);
    expect(events.of(PromptOverrideSkipped)).toEqual([
      expect.objectContaining({
        reason: 'stale',
        target: 'tool',
        toolName: 'search',
        expectedHash: contentHash('Searches the old index'),
        actualHash: contentHash(SEARCH_DESCRIPTION),
      }),
    ]);
  });

  it('keep the same frozen tool list from render to render, and publish at each', () => {
    const { template } = fixture();
    const prompt = new Prompt(template, { overrides: overrides({}, searchOverride) }).bind(Task, {
      user: 'Ada',
    });
    const session = new Session();
    const events = recordEvents(session);

    const first = prompt.render({ session });
    const second = prompt.render({ session });

    expect(second.tools).toBe(first.tools);
    expect(second.toolDefinitions()).toBe(first.toolDefinitions());
    expect(events.of(PromptOverrideApplied)).toHaveLength(2);
  });

  it('over 200 characters for a native tool fail when the prompt is created', () => {
    const { template } = fixture();
    const long = 'x'.repeat(201);
    expect(
      () =>
        new Prompt(template, {
          overrides: overrides(
            {},
            { search: { expectedHash: contentHash(SEARCH_DESCRIPTION), description: long } },
          ),
        }),
    ).toThrow(
      'overrides of prompt "demo/welcome" tag "stable": tool "search": description must be 1-200 characters after trimming, got 201',
    );
  });

  it('count characters as Tool.create does, one per code point: 200 emoji fit, 201 do not', () => {
    const { template } = fixture();
    const replace = (description: string) =>
      new Prompt(template, {
        overrides: overrides(
          {},
          { search: { expectedHash: contentHash(SEARCH_DESCRIPTION), description } },
        ),
      });
    expect(() => replace('\u{1F600}'.repeat(200))).not.toThrow();
    expect(() => replace('\u{1F600}'.repeat(201))).toThrow(
      'tool "search": description must be 1-200 characters after trimming, got 201',
    );
  });
});

describe('Prompt without overrides', () => {
  it('renders exactly as before and publishes no override event', () => {
    const { template } = fixture();
    const session = new Session();
    const events = recordEvents(session);
    const plain = new Prompt(template).bind(Task, { user: 'Ada' }).render({ session });
    const empty = new Prompt(template, {}).bind(Task, { user: 'Ada' }).render({ session });
    expect(empty.text).toBe(plain.text);
    expect(new Prompt(template).overrides).toBeUndefined();
    expect(
      events.all.filter(
        (event) =>
          event instanceof PromptOverrideApplied ||
          event instanceof PromptOverrideRefused ||
          event instanceof PromptOverrideSkipped,
      ),
    ).toEqual([]);
  });

  it('renders as its seed: a seed replaces every overridable text with itself', () => {
    const { template } = fixture();
    const seed = seedPromptOverrides(template, { tag: 'stable' });
    const plain = new Prompt(template).bind(Task, { user: 'Ada' }).render();
    const session = new Session();
    const events = recordEvents(session);
    const seeded = new Prompt(template, { overrides: seed })
      .bind(Task, { user: 'Ada' })
      .render({ session });
    expect(seeded.text).toBe(plain.text);
    expect(seeded.toolDefinitions()).toEqual(plain.toolDefinitions());
    expect(events.of(PromptOverrideApplied).map((event) => event.toolName ?? event.path)).toEqual([
      'task',
      'search',
      'task.style',
    ]);
  });
});

describe('overrides with the other prompt features', () => {
  it("keep a tool's examples when its description is overridden", () => {
    const pow = Tool.create({
      name: 'pow',
      description: 'Raises a number to a power',
      params: z.object({ base: z.number(), exponent: z.number() }),
      handler: ({ base, exponent }) => ToolResult.ok(base ** exponent),
      examples: [{ description: 'Two cubed', input: { base: 2, exponent: 3 }, output: 8 }],
    });
    const template = PromptTemplate.create({
      ns: 'demo',
      key: 'welcome',
      sections: [
        new MarkdownSection({
          key: 'math',
          title: 'Math',
          template: 'Compute.',
          acceptsOverrides: true,
          tools: [pow],
        }),
      ],
    });
    const plain = new Prompt(template).render();
    const rendered = new Prompt(template, {
      overrides: overrides(
        {},
        {
          pow: { expectedHash: contentHash('Raises a number to a power'), description: 'Powers.' },
        },
      ),
    }).render();
    expect(rendered.tools[0]?.description).toBe('Powers.');
    expect(rendered.tools[0]?.examples).toBe(pow.examples);
    expect(rendered.text).toContain('Two cubed');
    expect(rendered.text.replace('Powers.', 'Raises a number to a power')).toBe(plain.text);
  });

  it('apply to a summarized section read with read_section, as to one rendered in full', async () => {
    const template = PromptTemplate.create({
      ns: 'demo',
      key: 'welcome',
      sections: [
        new MarkdownSection({
          key: 'reference',
          title: 'Reference',
          template: 'The original reference text.',
          summary: 'A reference.',
          visibility: 'summary',
          acceptsOverrides: true,
        }),
      ],
    });
    const session = new Session();
    const prompt = new Prompt(template, {
      overrides: overrides({
        reference: override('The original reference text.', 'The tuned reference text.'),
      }),
    });
    const read = prompt.render({ session }).tools.find((tool) => tool.name === 'read_section')!;
    const result = await invokeTool(read, { section_key: 'reference' }, { session });
    expect(result.value).toContain('The tuned reference text.');
    expect(result.value).not.toContain('original');
  });
});
