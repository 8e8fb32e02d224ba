/** Why an evaluation ended without an answer. */
import type { TokenUsage } from '../runtime/events.js';

/** Codes carried by {@link EvaluateError}. */
export type EvaluateErrorCode =
  /** An option of `evaluate` or a value an adapter returned is not what it must be. */
  | 'evaluate-options'
  /** The adapter or the model call failed (network, provider error, an answer it could not read). */
  | 'evaluate-model'
  /** The caller's signal aborted. */
  | 'evaluate-aborted'
  /** The deadline passed before the model answered. */
  | 'evaluate-deadline'
  /** `maxTurns` model calls were made and the model still asked for tools. */
  | 'evaluate-max-turns'
  /** A tool failed with a `[FATAL] ` message (`cause` is the `McpFatalToolError`). */
  | 'evaluate-fatal-tool'
  /** The answer did not parse with the template's output schema, even after one repair turn. */
  | 'evaluate-output';

/** How far an evaluation got before it ended with an error. */
export interface EvaluateProgress {
  /** Model calls started. */
  readonly turns: number;
  /** Tool calls the model asked for. */
  readonly toolCalls: number;
  /** Tokens used by the calls that answered. */
  readonly usage: TokenUsage;
}

/**
 * An evaluation ended without an answer. `code` says why, `cause` carries
 * the error underneath (the provider's, `McpFatalToolError`,
 * `PromptOutputError`), and `progress` how far it got.
 */
export class EvaluateError extends Error {
  override readonly name: string = 'EvaluateError';
  constructor(
    readonly code: EvaluateErrorCode,
    message: string,
    readonly progress: EvaluateProgress,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
