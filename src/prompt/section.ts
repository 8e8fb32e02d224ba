import { z } from 'zod';
import { PromptValidationError } from '../core/errors.js';
import type { Session } from '../runtime/session.js';
import { checkToolPolicies, type ToolPolicy } from '../tools/policy/tool-policy.js';
import { isTool, type Tool } from '../tools/tool.js';
import { describeRefusedItem, describeValue, quoteShort } from './describe-value.js';
import { dedent } from './template-text.js';
import {
  type SectionSummaryContext,
  type SectionVisibility,
  type VisibilitySelector,
  checkSummaryOption,
  checkVisibilityOption,
  selectVisibility,
} from './visibility.js';

/** Section keys: `^[a-z0-9][a-z0-9._-]{0,63}$`. */
export const SECTION_KEY_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** A zod object schema used as a section's params type. */
export type ParamsSchema = z.ZodObject;

/** What a section knows while it renders. */
export interface SectionRenderContext {
  /** 0 for a top-level section. */
  readonly depth: number;
  /** Heading number without the trailing dot, e.g. `1.2`. */
  readonly number: string;
  /** Dotted path of keys from the root, e.g. `parent.child`. */
  readonly path: string;
  readonly session?: Session;
  /**
   * The description this render gives one of the section's tools: a prompt
   * override's, where one applies. Present only when overrides are in use;
   * a section that lists its tools in its body (the MCP inventory) asks it.
   */
  readonly toolDescription?: (tool: Tool) => string;
}

/**
 * Renders a body in place of {@link Section.renderBody}: made by
 * {@link Section.compileBody} from a prompt override's text.
 */
export type SectionBodyRenderer = (params: unknown, context: SectionRenderContext) => string;

/** Given to an `enabled` predicate. */
export interface SectionEnabledContext {
  readonly session?: Session;
}

/** Options shared by every section. */
export interface SectionOptions<P extends ParamsSchema | undefined = undefined> {
  /** `^[a-z0-9][a-z0-9._-]{0,63}$`, unique among siblings. */
  readonly key: string;
  /** The heading's text: one line, not blank. */
  readonly title: string;
  /** The section's params type, a zod object schema; placeholders must name its fields. */
  readonly params?: P;
  /** Used when no value is bound for `params`. */
  readonly defaultParams?: P extends ParamsSchema ? z.input<P> : never;
  readonly children?: readonly Section[];
  /** When it returns false the section, its subtree and its tools are skipped. @default always */
  readonly enabled?: (
    params: P extends ParamsSchema ? z.output<P> : undefined,
    context: SectionEnabledContext,
  ) => boolean;
  /** Tools offered to the model while this section is rendered. */
  readonly tools?: readonly Tool[];
  /** Rules for calls of this section's own tools (docs/policies.md). @default none */
  readonly policies?: readonly ToolPolicy[];
  /** Whether prompt overrides may replace this section's text. @default false */
  readonly acceptsOverrides?: boolean;
  /**
   * `'summary'` shows only `summary` (children and tools hidden) until the
   * model opens the section with `open_sections` (or reads it with
   * `read_section`); fixed, or chosen per render. See docs/prompts.md.
   * @default 'full'
   */
  readonly visibility?: VisibilitySelector<P extends ParamsSchema ? z.output<P> : undefined>;
  /** What the model sees while the section is summarized; dedented and trimmed. */
  readonly summary?: string;
}

type EnabledPredicate = (params: never, context: SectionEnabledContext) => boolean;

const NO_PARTS: readonly string[] = Object.freeze([]);
const NO_TOOLS: readonly Tool[] = Object.freeze([]);

/**
 * A node of a prompt: a heading, a body and children, with optional params
 * and tools. Subclasses implement {@link Section.renderBody}.
 */
export abstract class Section<P extends ParamsSchema | undefined = ParamsSchema | undefined> {
  readonly key: string;
  readonly title: string;
  readonly params: P | undefined;
  readonly defaultParams: unknown;
  readonly children: readonly Section[];
  readonly acceptsOverrides: boolean;
  /** Shown while the section is summarized, dedented and trimmed. */
  readonly summary: string | undefined;
  readonly #enabled: EnabledPredicate | undefined;
  readonly #tools: readonly Tool[];
  readonly #policies: readonly ToolPolicy[];
  readonly #visibility: VisibilitySelector<never> | undefined;

  /**
   * @throws PromptValidationError naming the section's key for a title that
   *   is not a one-line, non-blank string, `params` that are not a zod object
   *   schema, `children` that are not sections, `tools` that are not `Tool`s,
   *   or `policies` that are not a list of `ToolPolicy`.
   */
  protected constructor(options: SectionOptions<P>) {
    const where = `section "${options.key}"`;
    this.key = options.key;
    this.title = checkTitle(options.title, where);
    this.params = checkParams(options.params, where);
    this.defaultParams = options.defaultParams;
    this.children = checkItems(options.children, where, 'children', isSection, SECTION_EXPECTED);
    this.acceptsOverrides = options.acceptsOverrides ?? false;
    this.#enabled = options.enabled;
    this.#tools = checkItems(options.tools, where, 'tools', isTool, TOOL_EXPECTED);
    this.#policies = checkToolPolicies(options.policies, `section "${options.key}"`);
    checkVisibilityOption(options.key, options.visibility);
    checkSummaryOption(options.key, options.summary);
    this.#visibility = options.visibility;
    this.summary = options.summary === undefined ? undefined : dedent(options.summary);
  }

  /** Whether the section is rendered, given its resolved params. */
  isEnabled(params: unknown, context: SectionEnabledContext): boolean {
    return this.#enabled === undefined ? true : this.#enabled(params as never, context);
  }

  /** True when a render may summarize the section: its `visibility` is `'summary'` or a function. */
  get summarizable(): boolean {
    return this.#visibility !== undefined && this.#visibility !== 'full';
  }

  /** True when the section has something to show while summarized. */
  hasSummary(): boolean {
    return this.summary !== undefined;
  }

  /**
   * The visibility the section asks for, given its resolved params, before
   * what the model opened is taken into account.
   * @throws PromptRenderError when a visibility function returns anything else.
   */
  visibilityFor(
    params: unknown,
    context: SectionEnabledContext & { path: string },
  ): SectionVisibility {
    if (this.#visibility === undefined) return 'full';
    return selectVisibility(this.#visibility, params, context, context.path);
  }

  /** The body shown while summarized, without the heading. @default the `summary` text */
  renderSummary(
    _params: P extends ParamsSchema ? z.output<P> : undefined,
    _context: SectionSummaryContext,
  ): string {
    return this.summary ?? '';
  }

  /**
   * Parts the model may open one at a time while the section is summarized,
   * each under the key `<path>.<part>` (`McpIntegrationSection`: its
   * servers); the summary should show each part's key. @default none
   */
  summaryParts(): readonly string[] {
    return NO_PARTS;
  }

  /**
   * The tools offered while the section is summarized: those of the opened
   * parts. A frozen list that stays the same while nothing changed keeps
   * the render cache warm. @default none
   */
  summaryTools(_openedParts: ReadonlySet<string>): readonly Tool[] {
    return NO_TOOLS;
  }

  /** The tools this section offers. */
  tools(): readonly Tool[] {
    return this.#tools;
  }

  /** The policies for calls of this section's own tools (not its children's). */
  policies(): readonly ToolPolicy[] {
    return this.#policies;
  }

  /**
   * The tools known when the prompt template is created, for its checks.
   * Sections whose tools arrive later (MCP) return what they have so far.
   */
  toolsAtCreation(): readonly Tool[] {
    return this.tools();
  }

  /**
   * Checks the section's own definition; called by `PromptTemplate.create`
   * with the section's dotted path, which errors name.
   * @throws PromptValidationError
   */
  validate(_path?: string): void {}

  /**
   * The text a prompt override replaces, and whose content hash it
   * records: the body's template. `undefined` (the default) for a body with
   * no template, which overrides cannot replace.
   */
  bodyTemplate(): string | undefined {
    return undefined;
  }

  /**
   * Checks a prompt override's replacement for {@link Section.bodyTemplate}
   * and returns what renders it; called once, when a `Prompt` is created
   * with overrides.
   * @throws PromptValidationError when the text breaks the section's template rules.
   */
  compileBody(_text: string): SectionBodyRenderer {
    throw new PromptValidationError(`section "${this.key}" has no body template to replace`);
  }

  /** The body text, without the heading. */
  abstract renderBody(
    params: P extends ParamsSchema ? z.output<P> : undefined,
    context: SectionRenderContext,
  ): string;
}

/** What a section's `children` (and a prompt's `sections`) must hold. */
export const SECTION_EXPECTED = 'a Section (such as a MarkdownSection)';
const TOOL_EXPECTED = 'a Tool (made by Tool.create)';

/** Line breaks that would end a heading early: a title holding one could forge a heading. */
const LINE_BREAK = /[\n\v\f\r\u0085\u2028\u2029]/;

/**
 * True for a section, whatever its class and whatever copy of this
 * package made it: checked by shape, as tools are.
 */
export function isSection(value: unknown): value is Section {
  const section = value as Partial<Section> | null | undefined;
  return (
    typeof section?.key === 'string' &&
    typeof section.renderBody === 'function' &&
    typeof section.validate === 'function' &&
    typeof section.toolsAtCreation === 'function' &&
    Array.isArray(section.children)
  );
}

function checkTitle(title: unknown, where: string): string {
  if (typeof title !== 'string' || title.trim().length === 0) {
    throw new PromptValidationError(
      `${where}: title must be a non-blank string, received ${typeof title === 'string' ? quoteShort(title) : describeValue(title)}`,
    );
  }
  if (LINE_BREAK.test(title)) {
    throw new PromptValidationError(
      `${where}: title must be one line (it is the heading's text), received ${quoteShort(title)}`,
    );
  }
  return title;
}

function checkParams<P>(params: P, where: string): P {
  if (params === undefined || params instanceof z.ZodObject) return params;
  throw new PromptValidationError(
    `${where}: params must be a zod object schema (z.object({ ... })), received ${describeValue(params)}`,
  );
}

/**
 * A frozen copy of a list option whose every item passes `accepts`.
 * @throws PromptValidationError naming the option, the index and what was there.
 */
function checkItems<T>(
  items: unknown,
  where: string,
  option: string,
  accepts: (item: unknown) => item is T,
  expected: string,
): readonly T[] {
  if (items === undefined) return Object.freeze([]);
  if (!Array.isArray(items)) {
    throw new PromptValidationError(
      `${where}: ${option} must be an array of which each item is ${expected}, received ${describeValue(items)}`,
    );
  }
  items.forEach((item: unknown, index) => {
    if (!accepts(item)) {
      throw new PromptValidationError(
        `${where}: ${option}[${index}] must be ${expected}, received ${describeRefusedItem(item)}`,
      );
    }
  });
  return Object.freeze([...(items as T[])]);
}
