/**
 * What the model opened lives in a persistent session slice: written by
 * `flush()`, back after `Session.open` in another process, and asked for
 * only by prompts that can summarize something.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  FileSessionStore,
  MarkdownSection,
  OPENED_SECTIONS_SLICE,
  Prompt,
  PromptTemplate,
  Session,
  SessionStoreError,
  Tool,
  ToolResult,
  invokeTool,
  type OpenedSections,
} from '../../../src/index.js';
import { tempDir } from '../../support/mcp-fixtures.js';

const pow = Tool.create({
  name: 'pow',
  description: 'Raises a number to a power',
  params: z.object({ base: z.number(), exponent: z.number() }),
  handler: ({ base, exponent }) => ToolResult.ok(base ** exponent),
});

function template(): PromptTemplate {
  return PromptTemplate.create({
    ns: 'agent',
    key: 'main',
    sections: [
      new MarkdownSection({
        key: 'math',
        title: 'Math',
        template: 'Use pow.',
        summary: 'Math tools exist.',
        visibility: 'summary',
        tools: [pow],
      }),
    ],
  });
}

describe('the opened-sections slice', () => {
  it('is flushed to a FileSessionStore and read back by Session.open', async () => {
    await using dir = await tempDir('opened-sections');
    const first = await Session.open({
      sessionId: 'conv-1',
      store: new FileSessionStore({ directory: dir.path }),
    });
    const rendered = new Prompt(template()).render({ session: first });
    const open = rendered.tools.find((tool) => tool.name === 'open_sections')!;
    expect(
      (await invokeTool(open, { section_keys: ['math'], reason: 'x' }, { session: first })).success,
    ).toBe(true);
    await first.flush();
    await first.store?.close();

    // Another process: a new store client, a new session object, a new Prompt.
    const store = new FileSessionStore({ directory: dir.path });
    const second = await Session.open({ sessionId: 'conv-1', store });
    const again = new Prompt(template()).render({ session: second });
    expect(again.text).toContain('Use pow.');
    expect(again.tools.map((tool) => tool.name)).toEqual(['pow']);
    expect(second.slice<OpenedSections>(OPENED_SECTIONS_SLICE).get()).toEqual({
      'agent/main#math': 1,
    });
    await store.close();
  });

  it('cannot be read from a session whose store is not loaded yet: the render says so', async () => {
    await using dir = await tempDir('opened-sections');
    const session = new Session({
      sessionId: 'conv-2',
      store: new FileSessionStore({ directory: dir.path }),
    });
    const prompt = new Prompt(template());
    let error: unknown;
    try {
      prompt.render({ session });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SessionStoreError);
    expect((error as SessionStoreError).code).toBe('session-not-loaded');
    // A prompt that summarizes nothing never asks for the slice.
    const plain = PromptTemplate.create({
      ns: 'agent',
      key: 'plain',
      sections: [new MarkdownSection({ key: 'a', title: 'A', template: 'Hi.' })],
    });
    expect(new Prompt(plain).render({ session }).text).toBe('## 1. A (a)\n\nHi.');
    await session.ready;
    expect(prompt.render({ session }).text).toContain('Math tools exist.');
    await session.store?.close();
  });

  it('is created only by a prompt that can summarize, and is the same slice for all of them', () => {
    const session = new Session();
    const plain = PromptTemplate.create({
      ns: 'agent',
      key: 'plain',
      sections: [new MarkdownSection({ key: 'a', title: 'A', template: 'Hi.' })],
    });
    new Prompt(plain).render({ session });
    expect(() => session.slice(OPENED_SECTIONS_SLICE)).toThrow(/does not exist/);
    new Prompt(template()).render({ session });
    new Prompt(template()).render({ session });
    expect(session.slice(OPENED_SECTIONS_SLICE).get()).toEqual({});
  });
});
