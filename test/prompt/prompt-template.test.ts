import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MarkdownSection,
  PromptTemplate,
  PromptValidationError,
  Tool,
  ToolResult,
  type Section,
} from '../../src/index.js';

function create(sections: readonly Section[]): PromptTemplate {
  return PromptTemplate.create({ ns: 'test', key: 'prompt', sections });
}

function leaf(key: string, extra: { tools?: Tool[] } = {}): MarkdownSection {
  return new MarkdownSection({ key, title: `Title of ${key}`, template: 'Body', ...extra });
}

function tool(name: string): Tool {
  return Tool.create({
    name,
    description: 'Does a thing',
    params: z.object({}),
    handler: () => ToolResult.ok(null),
  });
}

/** Runs `fn`, expecting a PromptValidationError, and returns its message. */
function validationMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(PromptValidationError);
    return (error as PromptValidationError).message;
  }
  throw new Error('expected a PromptValidationError, nothing was thrown');
}

describe('PromptTemplate.create', () => {
  it('keeps ns, key, name and the sections of a valid tree', () => {
    const sections = [leaf('a'), leaf('b')];
    const template = PromptTemplate.create({ ns: 'agent', key: 'main', name: 'Main', sections });
    expect(template).toMatchObject({ ns: 'agent', key: 'main', name: 'Main' });
    expect(template.sections).toEqual(sections);
    expect(Object.isFrozen(template)).toBe(true);
  });

  describe('keys', () => {
    it.each(['a', '0', 'a.b-c_d', 'x'.repeat(64)])('accepts the key %s', (key) => {
      expect(() => create([leaf(key)])).not.toThrow();
    });

    it.each(['', 'Intro', '-start', '.start', '_start', 'with space', 'x'.repeat(65)])(
      'rejects the key %j, quoting it',
      (key) => {
        const message = validationMessage(() => create([leaf(key)]));
        expect(message).toContain(JSON.stringify(key));
        expect(message).toContain('^[a-z0-9][a-z0-9._-]{0,63}$');
      },
    );

    it('checks keys of nested sections and says where they are', () => {
      const nested = new MarkdownSection({
        key: 'parent',
        title: 'Parent',
        template: 'Body',
        children: [leaf('Child')],
      });
      expect(validationMessage(() => create([nested]))).toBe(
        'section key under "parent" "Child" must match ^[a-z0-9][a-z0-9._-]{0,63}$',
      );
    });

    it('applies the same rule to the prompt namespace and key', () => {
      expect(
        validationMessage(() =>
          PromptTemplate.create({ ns: 'My Agent', key: 'main', sections: [leaf('a')] }),
        ),
      ).toContain('"My Agent"');
      expect(
        validationMessage(() =>
          PromptTemplate.create({ ns: 'agent', key: 'Main', sections: [leaf('a')] }),
        ),
      ).toContain('"Main"');
    });

    it('rejects a key used twice among siblings, naming key and parent', () => {
      expect(validationMessage(() => create([leaf('a'), leaf('a')]))).toBe(
        'section key "a" is used twice under "(root)"',
      );
      const parent = new MarkdownSection({
        key: 'p',
        title: 'P',
        template: 'Body',
        children: [leaf('x'), leaf('x')],
      });
      expect(validationMessage(() => create([parent]))).toBe(
        'section key "x" is used twice under "p"',
      );
    });

    it('allows the same key under different parents', () => {
      const a = new MarkdownSection({ key: 'a', title: 'A', template: 'A', children: [leaf('x')] });
      const b = new MarkdownSection({ key: 'b', title: 'B', template: 'B', children: [leaf('x')] });
      expect(() => create([a, b])).not.toThrow();
    });
  });

  describe('what the tree is made of', () => {
    it('rejects sections that are not Section objects, naming the index', () => {
      expect(validationMessage(() => create(['x' as never]))).toBe(
        'prompt "test/prompt": sections[0] must be a Section (such as a MarkdownSection), received "x"',
      );
      expect(validationMessage(() => create([leaf('a'), { key: 'b' } as never]))).toBe(
        'prompt "test/prompt": sections[1] must be a Section (such as a MarkdownSection), received an object',
      );
      expect(
        validationMessage(() =>
          PromptTemplate.create({ ns: 'test', key: 'prompt', sections: leaf('a') as never }),
        ),
      ).toBe(
        'prompt "test/prompt": sections must be an array of which each item is a Section (such as a MarkdownSection), received an instance of MarkdownSection',
      );
    });

    it('rejects a child or a tool of the wrong kind that a section hands over later', () => {
      class Loose extends MarkdownSection {
        constructor(readonly extraTools: readonly unknown[]) {
          super({ key: 'loose', title: 'Loose', template: 'x' });
        }
        override toolsAtCreation(): readonly Tool[] {
          return this.extraTools as Tool[];
        }
      }
      const mutated = new Loose([]);
      // Checked when the section was built; a section may still change its own field.
      Object.defineProperty(mutated, 'children', { value: [42] });
      expect(validationMessage(() => create([mutated]))).toBe(
        'section "loose": children[0] must be a Section (such as a MarkdownSection), received 42',
      );
      expect(validationMessage(() => create([new Loose([tool('ok'), { name: 'x' }])]))).toBe(
        'section "loose": tools[1] must be a Tool (made by Tool.create), received an object',
      );
    });
  });

  it('rejects a prompt without sections', () => {
    expect(validationMessage(() => create([]))).toBe('prompt "test/prompt" has no sections');
  });

  describe('placeholders', () => {
    it('rejects a placeholder that names no params field, listing the fields', () => {
      const section = new MarkdownSection({
        key: 'greet',
        title: 'Greet',
        params: z.object({ user: z.string(), place: z.string() }),
        template: 'Hello ${usr}',
      });
      expect(validationMessage(() => create([section]))).toBe(
        'section "greet": placeholder "${usr}" names no params field (params fields: user, place)',
      );
    });

    it('rejects any placeholder in a section without params', () => {
      const section = new MarkdownSection({ key: 'greet', title: 'Greet', template: 'Hi ${user}' });
      expect(validationMessage(() => create([section]))).toBe(
        'section "greet": placeholder "${user}" names no params field (the section has no params)',
      );
    });

    it('checks placeholders deep in the tree', () => {
      const child = new MarkdownSection({ key: 'c', title: 'C', template: '${missing}' });
      const parent = new MarkdownSection({
        key: 'p',
        title: 'P',
        template: 'P',
        children: [child],
      });
      expect(validationMessage(() => create([parent]))).toContain('"${missing}"');
    });

    it('names a nested section by its dotted path, so two children with one key are told apart', () => {
      const User = z.object({ user: z.string() });
      const child = (template: string) => new MarkdownSection({ key: 'b', title: 'B', template });
      const parent = (key: string, template: string) =>
        new MarkdownSection({
          key,
          title: key,
          params: User,
          template: '${user}',
          children: [child(template)],
        });
      expect(validationMessage(() => create([parent('a', 'ok'), parent('x', '${user}')]))).toBe(
        'section "x.b": placeholder "${user}" names no params field (the section has no params)',
      );
    });

    it('does not treat an escaped $${name} as a placeholder', () => {
      const section = new MarkdownSection({ key: 'doc', title: 'Doc', template: 'Write $${name}' });
      expect(() => create([section])).not.toThrow();
    });

    it('rejects malformed placeholders when the section is built', () => {
      expect(
        validationMessage(
          () => new MarkdownSection({ key: 'bad', title: 'Bad', template: 'Hi ${user' }),
        ),
      ).toContain('unterminated "${"');
      expect(
        validationMessage(
          () => new MarkdownSection({ key: 'bad', title: 'Bad', template: 'Hi ${first name}' }),
        ),
      ).toContain('"${first name}"');
    });
  });

  describe('tool names', () => {
    it('rejects a tool name used twice in one prompt, naming both sections', () => {
      const parent = new MarkdownSection({
        key: 'p',
        title: 'P',
        template: 'P',
        tools: [tool('search')],
        children: [leaf('c', { tools: [tool('search')] })],
      });
      expect(validationMessage(() => create([parent]))).toBe(
        'tool name "search" is used twice in the prompt (sections "p" and "p.c")',
      );
    });

    it('rejects the same tool offered by two sections', () => {
      const shared = tool('shared');
      expect(
        validationMessage(() =>
          create([leaf('a', { tools: [shared] }), leaf('b', { tools: [shared] })]),
        ),
      ).toContain('"shared"');
    });

    it('checks tools of disabled sections too, since a toggle must not create a clash', () => {
      const off = new MarkdownSection({
        key: 'off',
        title: 'Off',
        template: 'Off',
        enabled: () => false,
        tools: [tool('dup')],
      });
      expect(
        validationMessage(() => create([off, leaf('on', { tools: [tool('dup')] })])),
      ).toContain('"dup"');
    });
  });
});
