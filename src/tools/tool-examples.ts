import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { describeSent } from '../core/describe-sent.js';
import { messageOf, PromptValidationError } from '../core/errors.js';
import { characterCount } from '../core/well-formed.js';

/** Longest example description, after trimming (as for tool descriptions). */
export const MAX_TOOL_EXAMPLE_DESCRIPTION_LENGTH = 200;

/**
 * A representative call of a tool, shown to the model in the "Tools:"
 * block of the section that offers it.
 */
export interface ToolExample<I = unknown> {
  /** What the example shows; 1–200 characters after trimming (stored trimmed). */
  readonly description: string;
  /** Arguments the tool's params accept, as the model would send them (JSON data). */
  readonly input: I;
  /**
   * What the tool answers (JSON data): a string is shown as it is, anything
   * else as JSON. Tools declare no result type, so it is not checked further.
   */
  readonly output: unknown;
}

/** No examples: shared by every tool created without any. */
export const NO_EXAMPLES: readonly ToolExample[] = Object.freeze([]);

/**
 * Checks a tool's examples against its params and returns frozen copies
 * with trimmed descriptions.
 *
 * @throws PromptValidationError naming the tool, the example index and the bad field.
 */
export function checkToolExamples(
  toolName: string,
  examples: unknown,
  params: z.ZodType,
): readonly ToolExample[] {
  if (!Array.isArray(examples)) {
    throw new PromptValidationError(
      `examples of tool "${toolName}" must be an array of { description, input, output }, received ${typeof examples}`,
    );
  }
  return Object.freeze(
    examples.map((example: unknown, index) => checkExample(toolName, example, index, params)),
  );
}

function checkExample(
  toolName: string,
  example: unknown,
  index: number,
  params: z.ZodType,
): ToolExample {
  const where = `tool "${toolName}" examples[${index}]`;
  if (typeof example !== 'object' || example === null || Array.isArray(example)) {
    throw new PromptValidationError(`${where} must be an object { description, input, output }`);
  }
  const { description, input, output } = example as Record<string, unknown>;
  const trimmed = typeof description === 'string' ? description.trim() : '';
  const length = characterCount(trimmed);
  if (length === 0 || length > MAX_TOOL_EXAMPLE_DESCRIPTION_LENGTH) {
    throw new PromptValidationError(
      `${where}.description must be 1-${MAX_TOOL_EXAMPLE_DESCRIPTION_LENGTH} characters after trimming, received ${describeSent(description)}`,
    );
  }
  checkInput(where, input, params);
  const inputCopy = jsonCopy(input, `${where}.input`);
  const outputCopy = jsonCopy(output, `${where}.output`);
  return Object.freeze({ description: trimmed, input: inputCopy, output: outputCopy });
}

function checkInput(where: string, input: unknown, params: z.ZodType): void {
  let parsed: z.ZodSafeParseResult<unknown>;
  try {
    parsed = params.safeParse(input);
  } catch (error) {
    const reason =
      error instanceof z.core.$ZodAsyncError
        ? 'the params schema has async refinements or transforms, which cannot be checked when the tool is created'
        : messageOf(error);
    throw new PromptValidationError(`${where}.input cannot be checked: ${reason}`, {
      cause: error,
    });
  }
  if (parsed.success) return;
  const problems = parsed.error.issues.map((issue) => {
    const field = ['input', ...issue.path.map(String)].join('.');
    return `${field}: ${issue.message}`;
  });
  throw new PromptValidationError(
    `${problems.map((problem) => `${where}.${problem}`).join('; ')} (the example does not match the tool's params)`,
    { cause: parsed.error },
  );
}

/**
 * A deep-frozen copy of JSON data.
 * @throws PromptValidationError for anything JSON would change (undefined, NaN, Date, Map…).
 */
function jsonCopy(value: unknown, where: string): unknown {
  const text = value === undefined ? undefined : JSON.stringify(value);
  const copy: unknown = text === undefined ? undefined : JSON.parse(text);
  if (text === undefined || !isDeepStrictEqual(copy, value)) {
    throw new PromptValidationError(
      `${where} must be JSON data (null, booleans, finite numbers, strings, arrays and plain objects), received ${describe(value)}`,
    );
  }
  return deepFreeze(copy);
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'object') return `a ${typeof value}`;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== 'Object' && name !== 'Array'
    ? `a ${name}`
    : 'a value with members JSON would drop or change';
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}
