/**
 * Named presets for {@link contextResult}: when a result is too long to put
 * in the model's context, and how much of it the preview keeps.
 */

/** Names of the built-in presets. */
export type ContextPresetName = 'default' | 'sql_query' | 'log_search';

/** How `contextResult` sizes one kind of result. All sizes are characters (UTF-16 code units). */
export interface ContextPreset {
  /** Results of at most this many characters are returned unchanged. */
  readonly threshold: number;
  /** JSON arrays: items kept from the start. */
  readonly jsonHeadItems: number;
  /** JSON arrays: items kept from the end. */
  readonly jsonTailItems: number;
  /** JSON objects: keys kept, in order. */
  readonly jsonMaxKeys: number;
  /** CSV: data rows kept after the header. */
  readonly csvHeadRows: number;
  /** CSV: data rows kept from the end. */
  readonly csvTailRows: number;
  /** Text: lines kept from the start. */
  readonly textHeadLines: number;
  /** Text: lines kept from the end. */
  readonly textTailLines: number;
  /** A preview line longer than this is cut, so one enormous line cannot fill the context. */
  readonly maxLineChars: number;
  /**
   * Upper bound of the whole preview. It may exceed `threshold`: the
   * threshold decides when to save, this decides how much to show. The
   * preview is also never longer than the result itself.
   */
  readonly maxPreviewChars: number;
}

const DEFAULT_PRESET: ContextPreset = Object.freeze({
  threshold: 5_000,
  jsonHeadItems: 10,
  jsonTailItems: 5,
  jsonMaxKeys: 20,
  csvHeadRows: 20,
  csvTailRows: 10,
  textHeadLines: 50,
  textTailLines: 20,
  maxLineChars: 500,
  maxPreviewChars: 5_000,
});

/**
 * The built-in presets: `default` (5000 characters), `sql_query` (2000, and
 * 30 + 10 CSV rows in the preview, since rows are what a query returns) and
 * `log_search` (10000, longer lines).
 */
export const CONTEXT_PRESETS: Readonly<Record<ContextPresetName, ContextPreset>> = Object.freeze({
  default: DEFAULT_PRESET,
  sql_query: Object.freeze({
    ...DEFAULT_PRESET,
    threshold: 2_000,
    csvHeadRows: 30,
    csvTailRows: 10,
    maxPreviewChars: 4_000,
  }),
  log_search: Object.freeze({
    ...DEFAULT_PRESET,
    threshold: 10_000,
    maxLineChars: 1_000,
    maxPreviewChars: 10_000,
  }),
});
