import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MarkdownSection,
  Prompt,
  PromptRenderError,
  PromptRendered,
  PromptTemplate,
  Session,
  Tool,
  ToolResult,
  type Section,
} from '../../src/index.js';

function tool(name: string): Tool {
  return Tool.create({
    name,
    description: `The ${name} tool`,
    params: z.object({}),
    handler: () => ToolResult.ok(null),
  });
}

function render(sections: readonly Section[]): string {
  return new Prompt(PromptTemplate.create({ ns: 'test', key: 'prompt', sections })).render().text;
}

const Context = z.object({ user: z.string(), budget: z.number() });

/** A three-level tree: intro > rules > (tone, format), intro > context, task. */
function tree(options: { rulesEnabled?: boolean } = {}): Section[] {
  return [
    new MarkdownSection({
      key: 'intro',
      title: 'Introduction',
      params: Context,
      template: `
        You are helping \${user}.
        Spend at most $$\${budget}.
      `,
      tools: [tool('lookup')],
      children: [
        new MarkdownSection({
          key: 'rules',
          title: 'Rules',
          template: 'Be brief.',
          enabled: () => options.rulesEnabled ?? true,
          tools: [tool('check_rules')],
          children: [
            new MarkdownSection({
              key: 'tone',
              title: 'Tone',
              template: 'Plain words only.',
              tools: [tool('tone_check')],
            }),
            new MarkdownSection({ key: 'format', title: 'Format', template: '- one\n- two' }),
          ],
        }),
        new MarkdownSection({ key: 'context', title: 'Context', template: 'Nothing else.' }),
      ],
    }),
    new MarkdownSection({
      key: 'task',
      title: 'Task',
      template: 'Answer the question.',
      tools: [tool('answer')],
    }),
  ];
}

describe('Prompt.render', () => {
  it('renders a three-level tree with numbered headings, dotted paths and blank lines', () => {
    const template = PromptTemplate.create({ ns: 'agent', key: 'main', sections: tree() });
    const rendered = new Prompt(template).bind(Context, { user: 'Ada', budget: 12 }).render();

    expect(rendered.text).toBe(
      [
        '## 1. Introduction (intro)',
        '',
        'You are helping Ada.',
        'Spend at most $12.',
        '',
        '### 1.1. Rules (intro.rules)',
        '',
        'Be brief.',
        '',
        '#### 1.1.1. Tone (intro.rules.tone)',
        '',
        'Plain words only.',
        '',
        '#### 1.1.2. Format (intro.rules.format)',
        '',
        '- one',
        '- two',
        '',
        '### 1.2. Context (intro.context)',
        '',
        'Nothing else.',
        '',
        '## 2. Task (task)',
        '',
        'Answer the question.',
      ].join('\n'),
    );
    expect(rendered.tools.map((t) => t.name)).toEqual([
      'lookup',
      'check_rules',
      'tone_check',
      'answer',
    ]);
  });

  it('drops a disabled section with its subtree and its tools, and numbers what remains', () => {
    const template = PromptTemplate.create({
      ns: 'agent',
      key: 'main',
      sections: tree({ rulesEnabled: false }),
    });
    const rendered = new Prompt(template).bind(Context, { user: 'Ada', budget: 12 }).render();

    expect(rendered.text).toBe(
      [
        '## 1. Introduction (intro)',
        '',
        'You are helping Ada.',
        'Spend at most $12.',
        '',
        '### 1.1. Context (intro.context)',
        '',
        'Nothing else.',
        '',
        '## 2. Task (task)',
        '',
        'Answer the question.',
      ].join('\n'),
    );
    expect(rendered.tools.map((t) => t.name)).toEqual(['lookup', 'answer']);
    expect(rendered.toolDefinitions().map((d) => d.name)).toEqual(['lookup', 'answer']);
  });

  it('renders a section with an empty body as its heading alone', () => {
    expect(
      render([
        new MarkdownSection({ key: 'empty', title: 'Empty', template: '   \n  ' }),
        new MarkdownSection({ key: 'next', title: 'Next', template: 'Body' }),
      ]),
    ).toBe('## 1. Empty (empty)\n\n## 2. Next (next)\n\nBody');
  });

  it('dedents and trims templates, keeping relative indentation and blank lines', () => {
    const text = render([
      new MarkdownSection({
        key: 'steps',
        title: 'Steps',
        // The blank line between the items carries stray indentation on purpose.
        template: '\n      1. Read.\n         Carefully.\n          \n      2. Write.\n    ',
      }),
    ]);
    expect(text).toBe('## 1. Steps (steps)\n\n1. Read.\n   Carefully.\n\n2. Write.');
  });

  it("keeps what a value put at the body's start, a code block's indentation", () => {
    const Code = z.object({ code: z.string() });
    const template = PromptTemplate.create({
      ns: 'docs',
      key: 'code',
      sections: [
        new MarkdownSection({ key: 'code', title: 'Code', params: Code, template: '${code}' }),
      ],
    });
    const text = new Prompt(template)
      .bind(Code, { code: '\n  \n    indented code\n    more\n  ' })
      .render().text;
    expect(text).toBe('## 1. Code (code)\n\n    indented code\n    more');
  });

  it('renders $$ as a literal $, also in front of a brace', () => {
    const Price = z.object({ amount: z.number() });
    const template = PromptTemplate.create({
      ns: 'shop',
      key: 'price',
      sections: [
        new MarkdownSection({
          key: 'price',
          title: 'Price',
          params: Price,
          template: 'Costs $$${amount}; write $${amount} to quote; a lone $ stays.',
        }),
      ],
    });
    expect(new Prompt(template).bind(Price, { amount: 5 }).render().text).toBe(
      '## 1. Price (price)\n\nCosts $5; write ${amount} to quote; a lone $ stays.',
    );
  });

  it('formats non-string values: numbers and booleans as text, objects as JSON', () => {
    const Values = z.object({ n: z.number(), flag: z.boolean(), list: z.array(z.string()) });
    const template = PromptTemplate.create({
      ns: 'values',
      key: 'all',
      sections: [
        new MarkdownSection({
          key: 'values',
          title: 'Values',
          params: Values,
          template: '${n} ${flag} ${list}',
        }),
      ],
    });
    const text = new Prompt(template)
      .bind(Values, { n: 1.5, flag: false, list: ['a'] })
      .render().text;
    expect(text).toBe('## 1. Values (values)\n\n1.5 false ["a"]');
  });

  it('throws PromptRenderError naming the placeholder when a value is missing at render', () => {
    const Greeting = z.object({ name: z.string().optional() });
    const template = PromptTemplate.create({
      ns: 'greet',
      key: 'hello',
      sections: [
        new MarkdownSection({
          key: 'outer',
          title: 'Outer',
          template: 'Outer body',
          children: [
            new MarkdownSection({
              key: 'hello',
              title: 'Hello',
              params: Greeting,
              template: 'Hello ${name}',
            }),
          ],
        }),
      ],
    });
    const prompt = new Prompt(template).bind(Greeting, {});
    expect(() => prompt.render()).toThrow(PromptRenderError);
    expect(() => prompt.render()).toThrow(
      'section "outer.hello": no value for placeholder "${name}"',
    );
  });

  it('gives one bound value to every section of that params type', () => {
    const User = z.object({ name: z.string() });
    const template = PromptTemplate.create({
      ns: 'shared',
      key: 'params',
      sections: [
        new MarkdownSection({ key: 'a', title: 'A', params: User, template: 'A: ${name}' }),
        new MarkdownSection({ key: 'b', title: 'B', params: User, template: 'B: ${name}' }),
      ],
    });
    expect(new Prompt(template).bind(User, { name: 'Lin' }).render().text).toBe(
      '## 1. A (a)\n\nA: Lin\n\n## 2. B (b)\n\nB: Lin',
    );
  });
});

describe('params lookup', () => {
  const Style = z.object({ tone: z.string().default('neutral'), name: z.string() });

  function styleSection(defaultParams?: z.input<typeof Style>): MarkdownSection<typeof Style> {
    return new MarkdownSection({
      key: 'style',
      title: 'Style',
      params: Style,
      template: '${name} is ${tone}',
      ...(defaultParams === undefined ? {} : { defaultParams }),
    });
  }

  function promptOf(section: Section): Prompt {
    return new Prompt(PromptTemplate.create({ ns: 'lookup', key: 'order', sections: [section] }));
  }

  it('uses the bound value first', () => {
    const prompt = promptOf(styleSection({ name: 'Default', tone: 'calm' }));
    prompt.bind(Style, { name: 'Bound', tone: 'sharp' });
    expect(prompt.render().text).toBe('## 1. Style (style)\n\nBound is sharp');
  });

  it("applies the schema's defaults to a bound value that omits a field", () => {
    const prompt = promptOf(styleSection({ name: 'Default', tone: 'calm' }));
    prompt.bind(Style, { name: 'Bound' });
    expect(prompt.render().text).toBe('## 1. Style (style)\n\nBound is neutral');
  });

  it("uses the section's defaultParams when nothing is bound", () => {
    const prompt = promptOf(styleSection({ name: 'Default', tone: 'calm' }));
    expect(prompt.render().text).toBe('## 1. Style (style)\n\nDefault is calm');
  });

  it("fills fields missing from defaultParams with the schema's defaults", () => {
    const prompt = promptOf(styleSection({ name: 'Default' }));
    expect(prompt.render().text).toBe('## 1. Style (style)\n\nDefault is neutral');
  });

  it("falls back to the schema's defaults when there is neither a binding nor defaultParams", () => {
    const Defaults = z.object({ tone: z.string().default('neutral') });
    const prompt = promptOf(
      new MarkdownSection({ key: 'tone', title: 'Tone', params: Defaults, template: '${tone}' }),
    );
    expect(prompt.render().text).toBe('## 1. Tone (tone)\n\nneutral');
  });

  it("falls back to the schema's defaults when defaultParams do not parse", () => {
    const Limit = z.object({
      max: z
        .number()
        .default(3)
        .refine((n) => n < 10, 'too large'),
    });
    const prompt = promptOf(
      new MarkdownSection({
        key: 'limit',
        title: 'Limit',
        params: Limit,
        defaultParams: { max: 50 },
        template: 'max ${max}',
      }),
    );
    expect(prompt.render().text).toBe('## 1. Limit (limit)\n\nmax 3');
  });

  it('throws PromptRenderError naming the section and the field when nothing parses', () => {
    const prompt = promptOf(styleSection());
    expect(() => prompt.render()).toThrow(PromptRenderError);
    expect(() => prompt.render()).toThrow(/section "style": no params bound; .*\bname\b/);
  });

  it('re-binding the same schema replaces the earlier value', () => {
    const prompt = promptOf(styleSection());
    prompt.bind(Style, { name: 'First', tone: 'calm' });
    prompt.bind(Style, { name: 'Second' });
    expect(prompt.render().text).toBe('## 1. Style (style)\n\nSecond is neutral');
  });

  it('rejects at bind time a value the schema does not parse', () => {
    const prompt = promptOf(styleSection());
    expect(() => prompt.bind(Style, { name: 42 } as never)).toThrow(PromptRenderError);
    expect(() => prompt.bind(Style, { name: 42 } as never)).toThrow(
      /bound params do not parse: name:/,
    );
  });
});

describe('bind', () => {
  it('refuses a schema that is not a zod object schema with a TypeError saying what it got', () => {
    const prompt = new Prompt(
      PromptTemplate.create({
        ns: 'test',
        key: 'prompt',
        sections: [new MarkdownSection({ key: 'a', title: 'A', template: 'x' })],
      }),
    );
    const message =
      "bind(schema, value): schema must be a zod object schema (a section's params), received";
    expect(() => prompt.bind(undefined as never, {} as never)).toThrow(
      new TypeError(`${message} nothing`),
    );
    expect(() => prompt.bind(z.string() as never, 'x' as never)).toThrow(
      new TypeError(`${message} a zod string schema`),
    );
    expect(() =>
      prompt.bind({ safeParse: () => ({ success: true }) } as never, {} as never),
    ).toThrow(new TypeError(`${message} an object`));
  });
});

describe('the enabled predicate', () => {
  it('that throws makes a PromptRenderError naming the section path, with the error as cause', () => {
    const failure = new Error('flag store unreachable');
    const template = PromptTemplate.create({
      ns: 'test',
      key: 'prompt',
      sections: [
        new MarkdownSection({
          key: 'parent',
          title: 'Parent',
          template: 'P',
          children: [
            new MarkdownSection({
              key: 'child',
              title: 'Child',
              template: 'C',
              enabled: () => {
                throw failure;
              },
            }),
          ],
        }),
      ],
    });
    let error: unknown;
    try {
      new Prompt(template).render();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PromptRenderError);
    expect((error as PromptRenderError).message).toBe(
      'section "parent.child": its enabled predicate threw: flag store unreachable',
    );
    expect((error as PromptRenderError).cause).toBe(failure);
  });

  it('receives the resolved params and the session, and can switch a section off', () => {
    const Flags = z.object({ verbose: z.boolean() });
    const calls: { params: unknown; session: unknown }[] = [];
    const template = PromptTemplate.create({
      ns: 'flags',
      key: 'verbose',
      sections: [
        new MarkdownSection({
          key: 'details',
          title: 'Details',
          params: Flags,
          template: 'All the details.',
          enabled: (params, context) => {
            calls.push({ params, session: context.session });
            return params.verbose;
          },
        }),
        new MarkdownSection({ key: 'summary', title: 'Summary', template: 'Short.' }),
      ],
    });
    const session = new Session();
    const prompt = new Prompt(template);

    expect(prompt.bind(Flags, { verbose: true }).render({ session }).text).toBe(
      '## 1. Details (details)\n\nAll the details.\n\n## 2. Summary (summary)\n\nShort.',
    );
    expect(prompt.bind(Flags, { verbose: false }).render().text).toBe(
      '## 1. Summary (summary)\n\nShort.',
    );
    expect(calls).toEqual([
      { params: { verbose: true }, session },
      { params: { verbose: false }, session: undefined },
    ]);
  });
});

describe('PromptRendered', () => {
  it('is published on the session when a prompt is rendered with one', () => {
    const session = new Session({ sessionId: 'render-1' });
    const events: PromptRendered[] = [];
    session.bus.subscribe(PromptRendered, (event) => events.push(event));
    const template = PromptTemplate.create({
      ns: 'agent',
      key: 'main',
      name: 'Main prompt',
      sections: [
        new MarkdownSection({
          key: 'task',
          title: 'Task',
          template: 'Do it.',
          tools: [tool('do_it')],
        }),
      ],
    });

    const rendered = new Prompt(template).render({ session });

    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      ns: 'agent',
      key: 'main',
      name: 'Main prompt',
      text: rendered.text,
      toolNames: ['do_it'],
      sessionId: 'render-1',
    });
    expect(events[0]!.createdAt).toBeInstanceOf(Date);
  });
});

describe('rendering again', () => {
  it('gives the same text, tools and definitions when nothing changed, and new ones when a section did', () => {
    const options = { rulesEnabled: true };
    const sections = tree(options);
    const prompt = new Prompt(PromptTemplate.create({ ns: 'test', key: 'prompt', sections }));
    prompt.bind(Context, { user: 'Ada', budget: 5 });
    const first = prompt.render();
    const second = prompt.render();
    expect(second.text).toBe(first.text);
    expect(second.tools).toBe(first.tools);
    expect(second.toolDefinitions()).toBe(first.toolDefinitions());

    prompt.bind(Context, { user: 'Grace', budget: 5 });
    const rebound = prompt.render();
    expect(rebound.text).toContain('You are helping Grace.');
    expect(rebound.tools).toBe(first.tools);

    options.rulesEnabled = false;
    const without = prompt.render();
    expect(without.text).not.toContain('Be brief.');
    expect(without.tools.map((t) => t.name)).toEqual(['lookup', 'answer']);
    expect(without.toolDefinitions().map((d) => d.name)).toEqual(['lookup', 'answer']);
  });

  it('publishes PromptRendered on every render to a subscriber', () => {
    const session = new Session();
    const seen: PromptRendered[] = [];
    session.bus.subscribe(PromptRendered, (event) => seen.push(event));
    const prompt = new Prompt(
      PromptTemplate.create({
        ns: 'test',
        key: 'prompt',
        sections: [
          new MarkdownSection({ key: 'a', title: 'A', template: 'a', tools: [tool('one')] }),
        ],
      }),
    );
    prompt.render({ session });
    prompt.render({ session });
    expect(seen.map((event) => event.toolNames)).toEqual([['one'], ['one']]);
  });
});
