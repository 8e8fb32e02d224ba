/**
 * Where prompt overrides are kept: one set per prompt (`ns/key`) and tag.
 * `FilePromptOverridesStore` keeps them in files; any other backend
 * implements this interface and ends in `parsePromptOverrides`.
 */
import type { PromptOverrides, PromptOverridesRef } from './prompt-overrides.js';

/** Options of every store call. */
export interface OverridesStoreCallOptions {
  readonly signal?: AbortSignal;
}

/** Reads and writes the overrides of prompts, by namespace, key and tag. */
export interface PromptOverridesStore {
  /**
   * The overrides stored for `ref`, checked; `undefined` when there are none.
   * @throws PromptOverridesError for stored overrides that do not parse.
   */
  resolve(
    ref: PromptOverridesRef,
    options?: OverridesStoreCallOptions,
  ): Promise<PromptOverrides | undefined>;
  /**
   * Stores `overrides` under their own `ns`, `key` and `tag`, replacing what
   * was there; a reader sees the old set or the new, never a mix.
   * @throws PromptOverridesError for overrides that do not parse.
   */
  upsert(overrides: PromptOverrides, options?: OverridesStoreCallOptions): Promise<void>;
  /** Removes the overrides stored for `ref`; resolves with whether there were any. */
  delete(ref: PromptOverridesRef, options?: OverridesStoreCallOptions): Promise<boolean>;
}
