/**
 * Structured output: a template's declared output rides on the rendered
 * prompt as JSON Schema, and `parseOutput` reads a model's answer against it.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  MarkdownSection,
  Prompt,
  PromptOutputError,
  PromptTemplate,
  PromptValidationError,
  parseOutput,
} from '../../src/index.js';

const Verdict = z.object({
  decision: z.enum(['approve', 'reject']),
  reasons: z.array(z.object({ text: z.string(), weight: z.number().min(0) })),
});

const task = new MarkdownSection({ key: 'task', title: 'Task', template: 'Review the change.' });

function rendered() {
  const template = PromptTemplate.create({
    ns: 'review',
    key: 'main',
    sections: [task],
    output: Verdict,
  });
  return new Prompt(template).render();
}

describe('a declared output', () => {
  it('rides on the rendered prompt as the JSON Schema of the answer', () => {
    expect(rendered().outputSchema).toEqual(z.toJSONSchema(Verdict, { io: 'output' }));
    const plain = PromptTemplate.create({ ns: 'review', key: 'plain', sections: [task] });
    expect(new Prompt(plain).render().outputSchema).toBeUndefined();
  });

  it('is refused at creation when zod cannot give it a JSON Schema', () => {
    expect(() =>
      PromptTemplate.create({ ns: 'review', key: 'bad', sections: [task], output: z.date() }),
    ).toThrow(PromptValidationError);
  });
});

describe('parseOutput', () => {
  it('accepts a valid answer, typed as the declared output, fenced or not', () => {
    const answer = { decision: 'approve', reasons: [{ text: 'tests pass', weight: 1 }] };
    const value = parseOutput(rendered(), JSON.stringify(answer));
    expectTypeOf(value).toEqualTypeOf<z.output<typeof Verdict>>();
    expect(value).toEqual(answer);
    expect(parseOutput(rendered(), `\`\`\`json\n${JSON.stringify(answer)}\n\`\`\``)).toEqual(
      answer,
    );
  });

  it('refuses an invalid answer, naming the path of each problem', () => {
    const answer = { decision: 'maybe', reasons: [{ text: 'x', weight: -1 }] };
    let error: unknown;
    try {
      parseOutput(rendered(), JSON.stringify(answer));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PromptOutputError);
    const message = (error as Error).message;
    expect(message).toMatch(/^the answer does not match the prompt's output: /);
    expect(message).toContain('answer.decision: ');
    expect(message).toContain('answer.reasons[0].weight: ');
  });

  it('refuses text that is not JSON, quoting its start', () => {
    expect(() => parseOutput(rendered(), 'I approve it.')).toThrow(
      /^the answer is not JSON \(.*\): "I approve it\."$/,
    );
  });

  it('refuses to read an answer for a prompt that declares no output', () => {
    const plain = PromptTemplate.create({ ns: 'review', key: 'plain', sections: [task] });
    expect(() => parseOutput(new Prompt(plain).render(), '{}')).toThrow(
      'the prompt declares no output: create its template with `output`',
    );
  });
});
