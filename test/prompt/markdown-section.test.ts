/**
 * Pins `MarkdownSection` on its own: the template is dedented and trimmed
 * (CRLF normalised, blank lines emptied), `$$` is a literal `$`, a bad
 * template is refused at construction, `validate` names a placeholder
 * without a params field, and `renderBody` fills values (strings as is,
 * numbers and booleans as text, objects as JSON) and names a missing one.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PromptRenderError, PromptValidationError } from '../../src/core/errors.js';
import { MarkdownSection } from '../../src/prompt/markdown-section.js';
import { Prompt } from '../../src/prompt/prompt.js';
import { PromptTemplate } from '../../src/prompt/prompt-template.js';

const context = { depth: 0, number: '1', path: 'parent.greeting' };

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('MarkdownSection', () => {
  it('dedents and trims the template', () => {
    const section = new MarkdownSection({
      key: 'k',
      title: 'T',
      template: '\r\n    First line\r\n      indented\r\n   \r\n    Last  \r\n  ',
    });
    expect(section.template).toBe('First line\n  indented\n\nLast');
    expect(section.renderBody(undefined, context)).toBe('First line\n  indented\n\nLast');
  });

  it('fills placeholders from params and keeps $$ as a literal $', () => {
    const Params = z.object({
      user: z.string(),
      budget: z.number(),
      ok: z.boolean(),
      tags: z.array(z.string()),
    });
    const section = new MarkdownSection({
      key: 'greeting',
      title: 'Greeting',
      params: Params,
      template: 'Hello ${user}: $$${budget} left, ok=${ok}, tags ${tags}, again ${user}.',
    });
    expect(() => section.validate()).not.toThrow();
    expect(
      section.renderBody({ user: 'Ada', budget: 12.5, ok: false, tags: ['a', 'b'] }, context),
    ).toBe('Hello Ada: $12.5 left, ok=false, tags ["a","b"], again Ada.');
  });

  it('renders through a prompt with its params', () => {
    const Params = z.object({ user: z.string() });
    const section = new MarkdownSection({
      key: 'greeting',
      title: 'Greeting',
      params: Params,
      template: 'Hello ${user}.',
    });
    const template = PromptTemplate.create({ ns: 'test', key: 'p', sections: [section] });
    expect(new Prompt(template).bind(Params, { user: 'Ada' }).render().text).toBe(
      '## 1. Greeting (greeting)\n\nHello Ada.',
    );
  });

  it('refuses a template that is not a string', () => {
    const error = thrown(
      () => new MarkdownSection({ key: 'k', title: 'T', template: 42 as unknown as string }),
    );
    expect(error).toBeInstanceOf(PromptValidationError);
    expect(error.message).toBe('section "k": template must be a string');
  });

  it.each([
    ['a ${ b', 'section "k": unterminated "${" at offset 2'],
    [
      '${1x}',
      'section "k": placeholder "${1x}" must be an identifier matching ^[A-Za-z_][A-Za-z0-9_]*$',
    ],
    [
      '${}',
      'section "k": placeholder "${}" must be an identifier matching ^[A-Za-z_][A-Za-z0-9_]*$',
    ],
  ])('refuses the template %j at construction', (template, message) => {
    const error = thrown(() => new MarkdownSection({ key: 'k', title: 'T', template }));
    expect(error).toBeInstanceOf(PromptValidationError);
    expect(error.message).toBe(message);
  });

  describe('title', () => {
    it.each([
      [undefined, 'a non-blank string, received nothing'],
      ['', 'a non-blank string, received ""'],
      [' \t ', 'a non-blank string, received " \\t "'],
      [42, 'a non-blank string, received 42'],
      [
        'A\n## 9. Fake (fake)',
        'one line (it is the heading\'s text), received "A\\n## 9. Fake (fake)"',
      ],
      ['A\r\nB', 'one line (it is the heading\'s text), received "A\\r\\nB"'],
      ['A\u2028B', 'one line (it is the heading\'s text), received "A\u2028B"'],
    ])('refuses the title %j, naming the section key', (title, expected) => {
      const error = thrown(
        () => new MarkdownSection({ key: 'k', title: title as never, template: 'x' }),
      );
      expect(error).toBeInstanceOf(PromptValidationError);
      expect(error.message).toBe(`section "k": title must be ${expected}`);
    });

    it('quotes a long bad title cut short', () => {
      const title = `${'t'.repeat(5_000)}\n`;
      const error = thrown(() => new MarkdownSection({ key: 'k', title, template: 'x' }));
      expect(error).toBeInstanceOf(PromptValidationError);
      expect(error.message).toContain('(5001 characters)');
      expect(error.message.length).toBeLessThan(200);
    });
  });

  describe('what the section is made of', () => {
    it('refuses params that are not a zod object schema, saying what they are', () => {
      for (const [params, received] of [
        [z.string(), 'a zod string schema'],
        [{ user: z.string() }, 'an object'],
        ['user', '"user"'],
      ] as const) {
        const error = thrown(
          () =>
            new MarkdownSection({
              key: 'k',
              title: 'T',
              params: params as never,
              template: '${user}',
            }),
        );
        expect(error).toBeInstanceOf(PromptValidationError);
        expect(error.message).toBe(
          `section "k": params must be a zod object schema (z.object({ ... })), received ${received}`,
        );
      }
    });

    it('refuses children that are not sections, naming the index and not dumping the value', () => {
      const child = new MarkdownSection({ key: 'c', title: 'C', template: 'c' });
      const bad = { key: 'b', secret: 's'.repeat(10_000) };
      const error = thrown(
        () =>
          new MarkdownSection({
            key: 'k',
            title: 'T',
            template: 'x',
            children: [child, bad as never],
          }),
      );
      expect(error).toBeInstanceOf(PromptValidationError);
      expect(error.message).toBe(
        'section "k": children[1] must be a Section (such as a MarkdownSection), received an object',
      );
      expect(
        thrown(
          () =>
            new MarkdownSection({ key: 'k', title: 'T', template: 'x', children: child as never }),
        ).message,
      ).toBe(
        'section "k": children must be an array of which each item is a Section (such as a MarkdownSection), received an instance of MarkdownSection',
      );
    });

    it('refuses tools that are not Tools', () => {
      const error = thrown(
        () =>
          new MarkdownSection({
            key: 'k',
            title: 'T',
            template: 'x',
            tools: [{ name: 'x' } as never],
          }),
      );
      expect(error).toBeInstanceOf(PromptValidationError);
      expect(error.message).toBe(
        'section "k": tools[0] must be a Tool (made by Tool.create), received an object',
      );
    });
  });

  it('validate names a placeholder without a params field', () => {
    const noParams = new MarkdownSection({ key: 'k', title: 'T', template: 'Hi ${user}' });
    const error = thrown(() => noParams.validate());
    expect(error).toBeInstanceOf(PromptValidationError);
    expect(error.message).toBe(
      'section "k": placeholder "${user}" names no params field (the section has no params)',
    );
    const withParams = new MarkdownSection({
      key: 'k',
      title: 'T',
      params: z.object({ name: z.string(), age: z.number() }),
      template: '${name} ${user}',
    });
    expect(thrown(() => withParams.validate()).message).toBe(
      'section "k": placeholder "${user}" names no params field (params fields: name, age)',
    );
    expect(thrown(() => withParams.validate('parent.k')).message).toBe(
      'section "parent.k": placeholder "${user}" names no params field (params fields: name, age)',
    );
  });

  it('renderBody names a missing or null value with the section path', () => {
    const section = new MarkdownSection({
      key: 'greeting',
      title: 'G',
      params: z.object({ user: z.string().nullable() }),
      template: 'Hi ${user}',
    });
    const error = thrown(() => section.renderBody({ user: null }, context));
    expect(error).toBeInstanceOf(PromptRenderError);
    expect(error.message).toBe('section "parent.greeting": no value for placeholder "${user}"');
  });
});
