/**
 * The open_sections and read_section tools, called the way a model calls
 * them: through invokeTool and the provider helpers, with the session's
 * slice written inside the call (so a failed call leaves it unchanged).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MarkdownSection,
  OPENED_SECTIONS_SLICE,
  Prompt,
  PromptTemplate,
  Session,
  Tool,
  ToolInvoked,
  ToolResult,
  invokeFromOpenAI,
  invokeTool,
  toOpenAITools,
  type OpenedSections,
  type RenderedPrompt,
  type Section,
} from '../../../src/index.js';

const Level = z.object({ expert: z.boolean().default(false) });

function tool(name: string): Tool {
  return Tool.create({
    name,
    description: `The ${name} tool`,
    params: z.object({}),
    handler: () => ToolResult.ok(null),
  });
}

function sections(): Section[] {
  return [
    new MarkdownSection({ key: 'task', title: 'Task', template: 'Answer.' }),
    new MarkdownSection({
      key: 'math',
      title: 'Math',
      template: 'Use pow for powers.',
      summary: 'Math tools exist.',
      visibility: 'summary',
      tools: [tool('pow')],
    }),
    new MarkdownSection({
      key: 'style',
      title: 'Style',
      params: Level,
      template: 'Write for ${expert}.',
      summary: 'A style guide exists.',
      visibility: (params) => (params.expert ? 'full' : 'summary'),
      children: [
        new MarkdownSection({
          key: 'tone',
          title: 'Tone',
          template: 'Be brief.',
          summary: 'Tone rules exist.',
          visibility: 'summary',
        }),
      ],
    }),
  ];
}

function newPrompt(key = 'tools'): Prompt {
  return new Prompt(PromptTemplate.create({ ns: 'test', key, sections: sections() }));
}

function named(rendered: RenderedPrompt, name: string): Tool {
  const found = rendered.tools.find((candidate) => candidate.name === name);
  if (found === undefined)
    throw new Error(`no tool ${name} in ${rendered.tools.map((t) => t.name).join(', ')}`);
  return found;
}

function opened(session: Session): OpenedSections {
  return session.slice<OpenedSections>(OPENED_SECTIONS_SLICE).get();
}

describe('open_sections', () => {
  it('records the keys in the session; the next render shows the section and offers its tools', async () => {
    const session = new Session();
    const prompt = newPrompt();
    const first = prompt.render({ session });
    expect(first.tools.map((t) => t.name)).toEqual(['open_sections', 'read_section']);

    const result = await invokeTool(
      named(first, 'open_sections'),
      { section_keys: ['math'], reason: 'I need powers' },
      { session },
    );
    expect(result.success).toBe(true);
    expect(result.message).toBe(
      'Opened "math": the next render of the prompt shows it in full, with its tools.',
    );
    expect(result.value).toEqual({ opened: ['math'], alreadyOpen: [] });
    expect(opened(session)).toEqual({ 'test/tools#math': 1 });

    const next = prompt.render({ session });
    expect(next.text).toContain('## 2. Math (math)\n\nUse pow for powers.');
    expect(next.tools.map((t) => t.name)).toEqual(['pow', 'read_section']);
  });

  it('opens anew a section whose opening a failed call rolled back after rendering it open', async () => {
    const session = new Session();
    const prompt = newPrompt();
    const open = named(prompt.render({ session }), 'open_sections');
    // An agent tool opens "math", looks at the prompt (a sub-agent's render), then fails.
    const scout = Tool.create({
      name: 'scout',
      description: 'Opens, looks, fails',
      params: z.object({}),
      handler: async (_params, context) => {
        await invokeTool(
          open,
          { section_keys: ['math'], reason: 'look' },
          { session: context.session },
        );
        prompt.render({ session: context.session });
        return ToolResult.error('the scout failed');
      },
    });
    expect((await invokeTool(scout, {}, { session })).success).toBe(false);
    expect(opened(session)).toEqual({});

    const again = await invokeTool(
      open,
      { section_keys: ['math'], reason: 'I need powers' },
      { session },
    );
    expect(again.value).toEqual({ opened: ['math'], alreadyOpen: [] });
    expect(opened(session)).toEqual({ 'test/tools#math': 1 });
    expect(prompt.render({ session }).tools.map((t) => t.name)).toContain('pow');
  });

  it('answers each session for its own latest render when one prompt serves several', async () => {
    const prompt = newPrompt();
    const alice = new Session();
    const bob = new Session();
    const forAlice = prompt.render({ session: alice });
    prompt.render({ session: bob });
    await invokeTool(
      named(forAlice, 'open_sections'),
      { section_keys: ['math'], reason: 'bob needs it' },
      { session: bob },
    );
    prompt.render({ session: bob }); // math is open for bob now
    // Alice's model opens math too: it is not open for her, whatever bob's render says.
    const result = await invokeTool(
      named(forAlice, 'open_sections'),
      { section_keys: ['math'], reason: 'alice needs it' },
      { session: alice },
    );
    expect(result.value).toEqual({ opened: ['math'], alreadyOpen: [] });
    expect(opened(alice)).toEqual({ 'test/tools#math': 1 });
    expect(prompt.render({ session: alice }).tools.map((t) => t.name)).toContain('pow');
  });

  it('runs from a provider tool call like any tool', async () => {
    const session = new Session();
    const events: ToolInvoked[] = [];
    session.bus.subscribe(ToolInvoked, (event) => events.push(event));
    const prompt = newPrompt();
    const rendered = prompt.render({ session });
    const result = await invokeFromOpenAI(
      rendered,
      {
        id: 'call_1',
        type: 'function',
        function: {
          name: 'open_sections',
          arguments: '{"section_keys":["math"],"reason":"need pow"}',
        },
      },
      { session },
    );
    expect(result.success).toBe(true);
    expect(events.map((event) => [event.toolName, event.params])).toEqual([
      ['open_sections', { section_keys: ['math'], reason: 'need pow' }],
    ]);
    expect(prompt.render({ session }).tools.map((t) => t.name)).toContain('pow');
  });

  it('has schemas that OpenAI strict mode takes as they are', () => {
    const rendered = newPrompt().render();
    expect(
      toOpenAITools(rendered, { strict: true }).map((tool) => [
        tool.function.name,
        tool.function.strict,
      ]),
    ).toEqual([
      ['open_sections', true],
      ['read_section', true],
    ]);
  });

  it('refuses unknown keys, listing the keys that can be opened, and opens nothing', async () => {
    const session = new Session();
    const rendered = newPrompt().render({ session });
    const result = await invokeTool(
      named(rendered, 'open_sections'),
      { section_keys: ['math', 'maths', 'style.tone'], reason: 'x' },
      { session },
    );
    expect(result.success).toBe(false);
    expect(result.message).toBe(
      'unknown section keys "maths", "style.tone"; keys that can be opened: "math", "style"',
    );
    expect(opened(session)).toEqual({});
  });

  it('accepts a key already open (recording this call opened it too), or shown in full by its visibility (recording nothing)', async () => {
    const session = new Session();
    const prompt = newPrompt().bind(Level, { expert: true });
    const rendered = prompt.render({ session });
    // style is full for experts, so its child tone is rendered, summarized.
    expect(rendered.text).toContain('Tone rules exist.');
    const open = named(rendered, 'open_sections');

    const first = await invokeTool(
      open,
      { section_keys: ['style', 'math', 'math'], reason: 'x' },
      { session },
    );
    expect(first.value).toEqual({ opened: ['math'], alreadyOpen: ['style'] });
    expect(first.message).toBe(
      'Opened "math": the next render of the prompt shows it in full, with its tools. Already open: "style".',
    );
    const again = await invokeTool(open, { section_keys: ['math'], reason: 'x' }, { session });
    expect(again.success).toBe(true);
    expect(again.value).toEqual({ opened: [], alreadyOpen: ['math'] });
    // Written again, so that a rollback of the first opening cannot close it; style is not recorded.
    expect(opened(session)).toEqual({ 'test/tools#math': 2 });
  });

  it('needs at least one key and a reason, like any validated tool', async () => {
    const session = new Session();
    const open = named(newPrompt().render({ session }), 'open_sections');
    const result = await invokeTool(open, { section_keys: [] }, { session });
    expect(result.success).toBe(false);
    expect(result.message).toMatch(
      /^invalid arguments for tool "open_sections": section_keys: .*reason: /,
    );
  });

  it('bounds the number of keys and the length of a key and of the reason, with one issue each', async () => {
    const session = new Session();
    const open = named(newPrompt().render({ session }), 'open_sections');
    const call = (args: unknown) => invokeTool(open, args, { session });

    // 200,000 keys once came back as a 12 MB error quoting each of them.
    const many = Array.from({ length: 200_000 }, (_, index) => `k${index}`.padEnd(300, 'x'));
    const tooMany = await call({ section_keys: many, reason: 'x' });
    expect(tooMany.success).toBe(false);
    expect(tooMany.message).toBe(
      'invalid arguments for tool "open_sections": section_keys: ' +
        `name at most 64 section keys in one call, received 200000`,
    );

    const tooLong = await call({
      section_keys: ['math', 'a'.repeat(257), 'b'.repeat(400)],
      reason: 'r'.repeat(1_001),
    });
    expect(tooLong.message).toBe(
      'invalid arguments for tool "open_sections": ' +
        'section_keys.1: a section key must be at most 256 characters, received 257; ' +
        'reason: the reason must be at most 1000 characters, received 1001',
    );

    const atTheBounds = await call({
      section_keys: [...Array.from({ length: 63 }, () => 'math'), 'c'.repeat(256)],
      reason: 'r'.repeat(1_000),
    });
    expect(atTheBounds.success).toBe(false); // an unknown key, past the bounds
    expect(atTheBounds.message).toMatch(/^unknown section key "c{256}"/);
    expect(opened(session)).toEqual({});
    const ok = await call({ section_keys: Array.from({ length: 64 }, () => 'math'), reason: 'x' });
    expect(ok.value).toEqual({ opened: ['math'], alreadyOpen: [] });
  });

  it('is rolled back with the call that opened it when that call fails', async () => {
    const session = new Session();
    const prompt = newPrompt();
    const rendered = prompt.render({ session });
    // An agent tool that opens a section, then fails: its writes, the nested call's included, are undone.
    let inside: { success: boolean; opened: OpenedSections } | undefined;
    const research = Tool.create({
      name: 'research',
      description: 'Opens what it needs, then gives up',
      params: z.object({}),
      handler: async (_params, context) => {
        const inner = await invokeTool(
          named(rendered, 'open_sections'),
          { section_keys: ['math'], reason: 'research' },
          { session: context.session },
        );
        inside = { success: inner.success, opened: opened(context.session) };
        return ToolResult.error('gave up');
      },
    });
    const result = await invokeTool(research, {}, { session });
    expect(result.message).toBe('gave up');
    expect(inside).toEqual({ success: true, opened: { 'test/tools#math': 1 } });
    expect(opened(session)).toEqual({});
    expect(prompt.render({ session }).text).toContain('Math tools exist.');
  });

  it('keeps prompts apart: opening in one prompt opens nothing in another', async () => {
    const session = new Session();
    const first = newPrompt('first');
    const second = newPrompt('second');
    const rendered = first.render({ session });
    second.render({ session });
    await invokeTool(
      named(rendered, 'open_sections'),
      { section_keys: ['math'], reason: 'x' },
      { session },
    );
    expect(first.render({ session }).text).toContain('Use pow for powers.');
    expect(second.render({ session }).text).toContain('Math tools exist.');
    // A new Prompt of the same template (a later turn) sees what was opened.
    expect(newPrompt('first').render({ session }).text).toContain('Use pow for powers.');
  });

  it('leaves an unchanged render cheap: the same text and the same frozen tool list', async () => {
    const session = new Session();
    const prompt = newPrompt();
    const a = prompt.render({ session });
    const b = prompt.render({ session });
    expect(b.text).toBe(a.text);
    expect(b.tools).toBe(a.tools);
    await invokeTool(
      named(a, 'open_sections'),
      { section_keys: ['math'], reason: 'x' },
      { session },
    );
    const c = prompt.render({ session });
    expect(c.tools).not.toBe(a.tools);
    expect(c.tools.map((t) => t.name)).toEqual(['pow', 'read_section']);
    expect(prompt.render({ session }).tools).toBe(c.tools);
    // The disclosure tools are the same objects from render to render.
    expect(named(c, 'read_section')).toBe(named(a, 'read_section'));
  });
});

describe('read_section', () => {
  it('returns the section in full, children at their own visibility, and opens nothing', async () => {
    const session = new Session();
    const prompt = newPrompt();
    const rendered = prompt.render({ session });
    const result = await invokeTool(
      named(rendered, 'read_section'),
      { section_key: 'style' },
      { session },
    );
    expect(result.success).toBe(true);
    expect(result.message).toBe('Section "style":');
    expect(result.value).toBe(
      [
        '## 3. Style (style)',
        '',
        'Write for false.',
        '',
        '### 3.1. Tone (style.tone)',
        '',
        'Tone rules exist.',
        '',
        '---',
        '[Summary only. Call `read_section` with key "style.tone" to read this section in full.]',
      ].join('\n'),
    );
    expect(opened(session)).toEqual({});
    // The subsection it showed summarized can be read in turn.
    const tone = await invokeTool(
      named(rendered, 'read_section'),
      { section_key: 'style.tone' },
      { session },
    );
    expect(tone).toMatchObject({ success: true, value: '### 3.1. Tone (style.tone)\n\nBe brief.' });
    expect(prompt.render({ session }).text).toBe(rendered.text);
  });

  it('refuses a section with tools, one not summarized, and an unknown key, saying which keys work', async () => {
    const session = new Session();
    const read = named(newPrompt().render({ session }), 'read_section');
    expect((await invokeTool(read, { section_key: 'math' }, { session })).message).toBe(
      'section "math" offers tools: call open_sections with it to see it and use them',
    );
    expect((await invokeTool(read, { section_key: 'task' }, { session })).message).toBe(
      'section "task" is not summarized: its full text is already in the prompt',
    );
    await invokeTool(read, { section_key: 'nope' }, { session }).then((result) => {
      expect(result.success).toBe(false);
      expect(result.message).toBe('unknown section key "nope"; keys that can be read: "style"');
    });
  });

  it('refuses a key over 256 characters, saying how long it was, without quoting it', async () => {
    const session = new Session();
    const read = named(newPrompt().render({ session }), 'read_section');
    const result = await invokeTool(read, { section_key: 'k'.repeat(100_000) }, { session });
    expect(result.success).toBe(false);
    expect(result.message).toBe(
      'invalid arguments for tool "read_section": section_key: ' +
        `a section key must be at most 256 characters, received 100000`,
    );
  });

  it('answers for the latest render: a section opened since is no longer summarized', async () => {
    const session = new Session();
    const prompt = newPrompt();
    const rendered = prompt.render({ session });
    await invokeTool(
      named(rendered, 'open_sections'),
      { section_keys: ['style'], reason: 'x' },
      { session },
    );
    prompt.render({ session });
    const result = await invokeTool(
      named(rendered, 'read_section'),
      { section_key: 'style' },
      { session },
    );
    expect(result.message).toBe(
      'section "style" is not summarized: its full text is already in the prompt',
    );
  });
});
