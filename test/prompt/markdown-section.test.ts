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
