import type { z } from 'zod';
import { PromptValidationError } from '../core/errors.js';
import {
  type ParamsSchema,
  Section,
  type SectionBodyRenderer,
  type SectionOptions,
  type SectionRenderContext,
} from './section.js';
import type { SectionSummaryContext } from './visibility.js';
import {
  type TemplatePart,
  dedent,
  fillTemplate,
  parseTemplate,
  placeholderNames,
} from './template-text.js';

/** Options of {@link MarkdownSection}. */
export interface MarkdownSectionOptions<
  P extends ParamsSchema | undefined = undefined,
> extends SectionOptions<P> {
  /** Markdown with `${field}` placeholders; dedented and trimmed. `$$` is a literal `$`. */
  readonly template: string;
  /** Shown while summarized: a template like `template`, with the same placeholders. */
  readonly summary?: string;
}

/**
 * A section whose body is a markdown template filled from its params.
 *
 * @example
 * const Params = z.object({ user: z.string() });
 * new MarkdownSection({ key: 'greeting', title: 'Greeting', params: Params,
 *   template: 'Hello ${user}.' });
 */
export class MarkdownSection<P extends ParamsSchema | undefined = undefined> extends Section<P> {
  readonly template: string;
  readonly #parts: readonly TemplatePart[];
  readonly #summaryParts: readonly TemplatePart[] | undefined;

  constructor(options: MarkdownSectionOptions<P>) {
    super(options);
    if (typeof options.template !== 'string') {
      throw new PromptValidationError(`section "${options.key}": template must be a string`);
    }
    this.template = dedent(options.template);
    this.#parts = parseTemplate(this.template, `section "${options.key}"`);
    this.#summaryParts =
      this.summary === undefined
        ? undefined
        : parseTemplate(this.summary, `summary of section "${options.key}"`);
  }

  /**
   * Checks that every placeholder names a params field.
   * @param path The section's dotted path, which errors name. @default the key
   * @throws PromptValidationError naming the path, the placeholder and the fields.
   */
  override validate(path: string = this.key): void {
    const where = `section "${path}"`;
    this.#checkPlaceholders(this.#parts, where);
    if (this.#summaryParts !== undefined) {
      this.#checkPlaceholders(this.#summaryParts, where, 'summary placeholder');
    }
  }

  /** The dedented template. */
  override bodyTemplate(): string {
    return this.template;
  }

  /**
   * An override's text is a template like the section's own (dedented, its
   * placeholders naming params fields), filled from the same params.
   */
  override compileBody(text: string): SectionBodyRenderer {
    const where = `override of section "${this.key}"`;
    const parts = parseTemplate(dedent(text), where);
    this.#checkPlaceholders(parts, where);
    return (params, context) =>
      fillTemplate(
        parts,
        (params ?? {}) as Readonly<Record<string, unknown>>,
        `section "${context.path}" (override)`,
      );
  }

  #checkPlaceholders(parts: readonly TemplatePart[], where: string, what = 'placeholder'): void {
    const fields = this.params === undefined ? [] : Object.keys(this.params.shape);
    for (const name of placeholderNames(parts)) {
      if (!fields.includes(name)) {
        const expected =
          fields.length === 0 ? 'the section has no params' : `params fields: ${fields.join(', ')}`;
        throw new PromptValidationError(
          `${where}: ${what} "\${${name}}" names no params field (${expected})`,
        );
      }
    }
  }

  override renderBody(
    params: P extends ParamsSchema ? z.output<P> : undefined,
    context: SectionRenderContext,
  ): string {
    const values = params ?? {};
    return fillTemplate(this.#parts, values, `section "${context.path}"`);
  }

  override renderSummary(
    params: P extends ParamsSchema ? z.output<P> : undefined,
    context: SectionSummaryContext,
  ): string {
    if (this.#summaryParts === undefined) return '';
    return fillTemplate(this.#summaryParts, params ?? {}, `summary of section "${context.path}"`);
  }
}
