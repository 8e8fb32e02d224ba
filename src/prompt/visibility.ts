import { PromptRenderError, PromptValidationError } from '../core/errors.js';
import type { SectionEnabledContext, SectionRenderContext } from './section.js';

/**
 * How a section is shown: `'full'` renders its body, its children and its
 * tools; `'summary'` renders its summary alone and lets the model open it.
 */
export type SectionVisibility = 'full' | 'summary';

/** The visibilities a selector may return. */
export const SECTION_VISIBILITIES: readonly SectionVisibility[] = Object.freeze([
  'full',
  'summary',
]);

/**
 * A section's visibility: fixed, or chosen at every render from its params
 * and the session (e.g. summarize a reference section after turn 3).
 */
export type VisibilitySelector<P = unknown> =
  SectionVisibility | ((params: P, context: SectionEnabledContext) => SectionVisibility);

/** What a section knows while it renders its summary. */
export interface SectionSummaryContext extends SectionRenderContext {
  /**
   * The parts of the section the model opened (see `Section.summaryParts`),
   * by part name; their content and tools are shown even though the
   * section is summarized.
   */
  readonly openedParts: ReadonlySet<string>;
}

/**
 * Checks a `visibility` option when a section is built.
 * @throws PromptValidationError naming the section and the bad value.
 */
export function checkVisibilityOption(key: string, visibility: unknown): void {
  if (visibility === undefined || typeof visibility === 'function') return;
  if (!SECTION_VISIBILITIES.includes(visibility as SectionVisibility)) {
    throw new PromptValidationError(
      `section "${key}": visibility must be 'full', 'summary' or a function returning one, received ${describe(visibility)}`,
    );
  }
}

/**
 * Checks a `summary` option when a section is built.
 * @throws PromptValidationError naming the section and the bad value.
 */
export function checkSummaryOption(key: string, summary: unknown): void {
  if (summary === undefined || (typeof summary === 'string' && summary.trim().length > 0)) return;
  throw new PromptValidationError(
    `section "${key}": summary must be a non-empty string, received ${describe(summary)}`,
  );
}

/**
 * The visibility a selector gives for one render.
 * @throws PromptRenderError when a selector function returns anything but `'full'` or `'summary'`.
 */
export function selectVisibility(
  selector: VisibilitySelector<never>,
  params: unknown,
  context: SectionEnabledContext,
  path: string,
): SectionVisibility {
  if (typeof selector !== 'function') return selector;
  const chosen: unknown = selector(params as never, context);
  if (chosen === 'full' || chosen === 'summary') return chosen;
  throw new PromptRenderError(
    `section "${path}": the visibility function returned ${describe(chosen)}; expected 'full' or 'summary'`,
  );
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}
