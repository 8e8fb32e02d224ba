/**
 * The model's final answer, read against the prompt's declared output:
 * JSON (a whole-answer ```json fence is allowed), then the zod schema.
 */
import type { z } from 'zod';
import { PromptOutputError, messageOf } from '../core/errors.js';
import type { RenderedPrompt } from './rendered-prompt.js';

/**
 * The answer `text` as the declared output type of `rendered`'s template.
 *
 * @example
 * ```ts
 * const answer = parseOutput(rendered, modelText); // typed as the template's output
 * ```
 * @throws PromptOutputError when the prompt declares no output, the answer
 *   is not JSON, or it breaks the schema (each problem with its path).
 */
export function parseOutput<O>(rendered: RenderedPrompt<O>, text: string): O {
  const output = rendered.output;
  if (output === undefined) {
    throw new PromptOutputError('the prompt declares no output: create its template with `output`');
  }
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text.trim());
  const json = fenced?.[1] ?? text.trim();
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    const start = json.length > 40 ? `${json.slice(0, 40)}…` : json;
    throw new PromptOutputError(
      `the answer is not JSON (${messageOf(error)}): ${JSON.stringify(start)}`,
      { cause: error },
    );
  }
  const parsed = output.schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new PromptOutputError(
    `the answer does not match the prompt's output: ${describeIssues(parsed.error.issues)}`,
    { cause: parsed.error },
  );
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const path = issue.path.map((segment) =>
        typeof segment === 'number' ? `[${segment}]` : `.${String(segment)}`,
      );
      return `answer${path.join('')}: ${issue.message}`;
    })
    .join('; ');
}
