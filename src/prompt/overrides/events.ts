/**
 * What a render did with each prompt override that concerned it, published
 * on the session passed to `Prompt.render` (before `PromptRendered`).
 */
import { defineEvent } from '../../runtime/define-event.js';

/** What an override replaces: a section's body or a tool's description. */
export type PromptOverrideTarget = 'section' | 'tool';

/** Fields every prompt override event carries. */
export interface PromptOverrideEventInit {
  readonly ns: string;
  readonly key: string;
  readonly tag: string;
  readonly target: PromptOverrideTarget;
  /** Dotted path of the section overridden, or of the section offering the tool. */
  readonly path: string;
  /** The tool's name, when `target` is `'tool'`. */
  readonly toolName?: string;
  readonly sessionId: string;
  readonly createdAt: Date;
}

/** Fields of {@link PromptOverrideApplied}. */
export interface PromptOverrideAppliedInit extends PromptOverrideEventInit {
  /** The content hash of the text replaced (the override's `expectedHash`). */
  readonly replacedHash: string;
}

/** An override replaced a section's body or a tool's description in this render. */
export class PromptOverrideApplied extends defineEvent<PromptOverrideAppliedInit>() {}

/** Fields of {@link PromptOverrideRefused}. */
export interface PromptOverrideRefusedInit extends PromptOverrideEventInit {
  /** Why, e.g. `section "safety" does not accept overrides`. */
  readonly reason: string;
}

/**
 * An override was not applied because its target does not take overrides:
 * the section (or the section offering the tool) has `acceptsOverrides`
 * false, or its body has no template.
 */
export class PromptOverrideRefused extends defineEvent<PromptOverrideRefusedInit>() {}

/** Why an override was skipped. */
export type PromptOverrideSkipReason = 'stale' | 'unknown-section';

/** Fields of {@link PromptOverrideSkipped}. */
export interface PromptOverrideSkippedInit extends PromptOverrideEventInit {
  /**
   * `stale`: the text it was written against has changed since;
   * `unknown-section`: the prompt has no section at that path.
   */
  readonly reason: PromptOverrideSkipReason;
  /** The content hash the override recorded. */
  readonly expectedHash: string;
  /** The content hash of the text now, when there is a text. */
  readonly actualHash?: string;
}

/**
 * An override was not applied because what it was written against is gone
 * or has changed: the code's text is rendered instead.
 */
export class PromptOverrideSkipped extends defineEvent<PromptOverrideSkippedInit>() {}
