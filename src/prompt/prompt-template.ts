import { z } from 'zod';
import { PromptValidationError, messageOf } from '../core/errors.js';
import { checkToolPolicies, type ToolPolicy } from '../tools/policy/tool-policy.js';
import { isTool, type JsonSchema } from '../tools/tool.js';
import { describeRefusedItem, describeValue } from './describe-value.js';
import { checkDisclosureToolNames, checkSummarizable } from './disclosure/disclosure-checks.js';
import { SECTION_EXPECTED, SECTION_KEY_PATTERN, type Section, isSection } from './section.js';

/** Options of {@link PromptTemplate.create}. */
export interface PromptTemplateOptions<O = unknown> {
  /** Namespace, e.g. the agent's name; same rule as section keys. */
  readonly ns: string;
  /** Key of the prompt within its namespace. */
  readonly key: string;
  /** Human-readable name. */
  readonly name?: string;
  readonly sections: readonly Section[];
  /**
   * The shape of the model's final answer: its JSON Schema rides on every
   * rendered prompt (`outputSchema`, for a provider's structured-output
   * parameter), and `parseOutput` checks an answer against it.
   */
  readonly output?: z.ZodType<O>;
  /** Rules for calls of every tool of the prompt, after each section's own (docs/policies.md). @default none */
  readonly policies?: readonly ToolPolicy[];
}

/**
 * A validated, immutable tree of sections. Every rule is checked here, at
 * creation, so a bad prompt never reaches a conversation.
 */
export class PromptTemplate<O = unknown> {
  readonly ns: string;
  readonly key: string;
  readonly name: string | undefined;
  readonly sections: readonly Section[];
  /** The declared output, if any, and its JSON Schema. */
  readonly output: { readonly schema: z.ZodType<O>; readonly jsonSchema: JsonSchema } | undefined;
  /** Policies for every tool of the prompt. */
  readonly policies: readonly ToolPolicy[];

  private constructor(
    options: PromptTemplateOptions<O>,
    jsonSchema: JsonSchema | undefined,
    policies: readonly ToolPolicy[],
  ) {
    this.ns = options.ns;
    this.key = options.key;
    this.name = options.name;
    this.sections = Object.freeze([...options.sections]);
    this.output =
      options.output === undefined || jsonSchema === undefined
        ? undefined
        : Object.freeze({ schema: options.output, jsonSchema });
    this.policies = policies;
    Object.freeze(this);
  }

  /**
   * Validates the tree and creates the template: keys match
   * `^[a-z0-9][a-z0-9._-]{0,63}$` and are unique among siblings, every
   * placeholder names a params field, tool names are unique across the prompt;
   * sections and tools are what they claim to be.
   *
   * @throws PromptValidationError quoting the offending value, or naming the
   *   path of the section it was found in.
   */
  static create<O = unknown>(options: PromptTemplateOptions<O>): PromptTemplate<O> {
    checkKey(options.ns, 'prompt namespace');
    checkKey(options.key, 'prompt key');
    const prompt = `prompt "${options.ns}/${options.key}"`;
    if (!Array.isArray(options.sections)) {
      throw new PromptValidationError(
        `${prompt}: sections must be an array of which each item is ${SECTION_EXPECTED}, received ${describeValue(options.sections)}`,
      );
    }
    if (options.sections.length === 0) {
      throw new PromptValidationError(`${prompt} has no sections`);
    }
    const toolOwners = new Map<string, string>();
    let summarizable = false;
    const visit = (sections: readonly Section[], parentPath: string): void => {
      const siblings = new Set<string>();
      for (const [index, section] of sections.entries()) {
        // Children were checked when their parent was built; a subclass may still hand over anything.
        if (!isSection(section)) {
          const owner =
            parentPath === '' ? `${prompt}: sections` : `section "${parentPath}": children`;
          throw new PromptValidationError(
            `${owner}[${index}] must be ${SECTION_EXPECTED}, received ${describeRefusedItem(section)}`,
          );
        }
        checkKey(
          section.key,
          parentPath === '' ? 'section key' : `section key under "${parentPath}"`,
        );
        const path = parentPath === '' ? section.key : `${parentPath}.${section.key}`;
        if (siblings.has(section.key)) {
          throw new PromptValidationError(
            `section key "${section.key}" is used twice under "${parentPath || '(root)'}"`,
          );
        }
        siblings.add(section.key);
        section.validate(path);
        checkSummarizable(section, path);
        summarizable ||= section.summarizable;
        for (const [toolIndex, tool] of section.toolsAtCreation().entries()) {
          if (!isTool(tool)) {
            throw new PromptValidationError(
              `section "${path}": tools[${toolIndex}] must be a Tool (made by Tool.create), received ${describeRefusedItem(tool)}`,
            );
          }
          const owner = toolOwners.get(tool.name);
          if (owner !== undefined) {
            throw new PromptValidationError(
              `tool name "${tool.name}" is used twice in the prompt (sections "${owner}" and "${path}")`,
            );
          }
          toolOwners.set(tool.name, path);
        }
        visit(section.children, path);
      }
    };
    visit(options.sections, '');
    if (summarizable) checkDisclosureToolNames(toolOwners);
    const policies = checkToolPolicies(options.policies, `prompt "${options.ns}/${options.key}"`);
    return new PromptTemplate(options, outputJsonSchema(options), policies);
  }
}

function checkKey(key: unknown, what: string): void {
  if (typeof key !== 'string' || !SECTION_KEY_PATTERN.test(key)) {
    throw new PromptValidationError(
      `${what} ${JSON.stringify(key)} must match ${SECTION_KEY_PATTERN.source}`,
    );
  }
}

/** The JSON Schema of a declared output. @throws PromptValidationError when zod cannot express it. */
function outputJsonSchema(options: PromptTemplateOptions<unknown>): JsonSchema | undefined {
  if (options.output === undefined) return undefined;
  if (!(options.output instanceof z.ZodType)) {
    throw new PromptValidationError(
      `output of prompt "${options.ns}/${options.key}" must be a zod schema, received ${typeof options.output}`,
    );
  }
  try {
    return Object.freeze(z.toJSONSchema(options.output, { io: 'output' }));
  } catch (error) {
    throw new PromptValidationError(
      `output of prompt "${options.ns}/${options.key}" has no JSON Schema: ${messageOf(error)}`,
      { cause: error },
    );
  }
}
