import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  EvaluateError,
  MarkdownSection,
  Prompt,
  PromptTemplate,
  Session,
  type ModelAdapter,
} from '../../src/index.js';
import { checkOptions, checkReply } from '../../src/evaluate/check-options.js';

const prompt = new Prompt(
  PromptTemplate.create({
    ns: 'check',
    key: 'options',
    sections: [new MarkdownSection({ key: 'task', title: 'Task', template: 'Hi.' })],
    output: z.object({ ok: z.boolean() }),
  }),
);
const adapter: ModelAdapter = {
  name: 'fine',
  generate: () => Promise.resolve({ messages: [], text: '', toolCalls: [] }),
  toolResults: () => [],
  userMessage: (text) => text,
};
const session = new Session();

function problem(promptValue: unknown, options: Record<string, unknown>): string {
  try {
    checkOptions(promptValue, { adapter, session, ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(EvaluateError);
    expect((error as EvaluateError).code).toBe('evaluate-options');
    return (error as Error).message;
  }
  return 'no error';
}

describe('checkOptions', () => {
  it('accepts a prompt, an adapter and a session', () => {
    expect(problem(prompt, {})).toBe('no error');
    expect(
      problem(prompt, { maxTurns: 1, deadline: new Date(), signal: AbortSignal.abort() }),
    ).toBe('no error');
  });

  it.each([
    [{ maxTurns: 0 }, 'maxTurns must be a whole number of at least 1, received number 0'],
    [{ maxTurns: 2.5 }, 'maxTurns must be a whole number of at least 1, received number 2.5'],
    [
      { maxToolCallsPerTurn: 0 },
      'maxToolCallsPerTurn must be a whole number of at least 1, received number 0',
    ],
    [{ deadline: new Date('nope') }, 'deadline must be a valid Date, received Invalid Date'],
    [{ deadline: 1_000 }, 'deadline must be a valid Date, received number 1000'],
    [{ signal: 'stop' }, 'signal must be an AbortSignal, received "stop"'],
    [{ session: {} }, 'session must be a Session, received an object (Object)'],
    [
      { adapter: undefined },
      'adapter must be a model adapter (e.g. openaiChat(client, model)), received undefined',
    ],
    [
      { adapter: { ...adapter, userMessage: undefined } },
      'adapter "fine" has no userMessage() method; a model adapter has generate, toolResults and userMessage',
    ],
    [{ adapter: { ...adapter, name: '' } }, 'adapter name must be a non-empty string, received ""'],
  ])('refuses %o', (options, message) => {
    expect(problem(prompt, options)).toBe(message);
  });

  it('refuses what is not a Prompt, without printing a function', () => {
    expect(problem(prompt.template, {})).toBe(
      'evaluate needs a Prompt (new Prompt(template)), received an object (PromptTemplate)',
    );
    expect(problem(() => 'secret source', {})).toBe(
      'evaluate needs a Prompt (new Prompt(template)), received a function',
    );
  });
});

describe('checkReply', () => {
  const fail = (message: string): Error => new Error(message);

  it.each([
    [null, 'is null, not an object'],
    [{ text: '', toolCalls: [] }, 'has no messages array (received undefined)'],
    [{ messages: [], text: 3, toolCalls: [] }, 'has no text string (received number 3)'],
    [
      {
        messages: [],
        text: '',
        toolCalls: [
          { id: 'a', name: 'x' },
          { id: 1, name: 'y' },
        ],
      },
      'has a tool call without a string id and name at toolCalls[1]',
    ],
  ])('refuses %o', (reply, message) => {
    expect(() => checkReply(reply, 'mine', fail)).toThrow(
      `adapter "mine" returned a reply that ${message}`,
    );
  });

  it('accepts a well-formed reply', () => {
    expect(() =>
      checkReply(
        { messages: [], text: 'hi', toolCalls: [{ id: 'a', name: 'x', input: {} }] },
        'mine',
        fail,
      ),
    ).not.toThrow();
  });
});
