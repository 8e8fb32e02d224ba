/** The annotations of a server's tool, as a bridged tool carries them. */
import type { ToolAnnotations } from '../tools/tool.js';
import type { McpToolDescription } from './server-connection.js';
import { serverTextLine, type TextMasker } from './server-text.js';

/** Longest tool title kept from a server: a display name, not instructions. */
const MAX_TITLE_LENGTH = 100;

/**
 * A tool's annotations as the library keeps them, frozen: the MCP hints
 * that are booleans, and its display name (from `title`, or the
 * annotations' own) cleaned, masked for the server's secrets and cut to one
 * short line (`serverTextLine` masks after cleaning too: cleaning can join
 * up a secret that invisible characters split). Tools without a display
 * name share one object per combination of hints (the tool made from them
 * keeps a copy of its own, as every tool does).
 */
export function toAnnotations(
  description: McpToolDescription,
  masker: TextMasker,
): ToolAnnotations {
  const source = description.annotations ?? {};
  // MCP puts a display name on the tool (`title`), and earlier on its annotations.
  const title = description.title ?? source.title;
  const hints = [
    source.readOnlyHint,
    source.destructiveHint,
    source.idempotentHint,
    source.openWorldHint,
  ];
  if (typeof title !== 'string') {
    // Each hint absent, false or true: a number in base 3 names the combination.
    const key = hints.reduce<number>(
      (sum, hint) => sum * 3 + (typeof hint === 'boolean' ? (hint ? 2 : 1) : 0),
      0,
    );
    return (SHARED[key] ??= withHints({}, hints));
  }
  return withHints({ title: serverTextLine(title, MAX_TITLE_LENGTH, masker) }, hints);
}

/** Annotations without a display name, by the combination of their hints (see {@link toAnnotations}). */
const SHARED: ToolAnnotations[] = [];

/** `annotations` with the hints that are booleans, frozen. */
function withHints(
  annotations: Mutable<ToolAnnotations>,
  hints: readonly unknown[],
): ToolAnnotations {
  HINTS.forEach((name, index) => {
    const hint = hints[index];
    if (typeof hint === 'boolean') annotations[name] = hint;
  });
  return Object.freeze(annotations);
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
