/** The annotations of a server's tool, as a bridged tool carries them. */
import type { ToolAnnotations } from '../tools/tool.js';
import type { SecretRedactor } from './redact.js';
import type { McpToolDescription } from './server-connection.js';
import { serverTextLine } from './server-text.js';

/** Longest tool title kept from a server: a display name, not instructions. */
const MAX_TITLE_LENGTH = 100;

/**
 * A tool's annotations as the library keeps them: the MCP hints that are
 * booleans, and its display name (from `title`, or the annotations' own)
 * cleaned, masked for the server's secrets and cut to one short line
 * (`serverTextLine` masks after cleaning too: cleaning can join up a
 * secret that invisible characters split).
 */
export function toAnnotations(
  description: McpToolDescription,
  redactor: SecretRedactor,
): ToolAnnotations {
  const source = description.annotations ?? {};
  const out: { -readonly [K in keyof ToolAnnotations]: ToolAnnotations[K] } = {};
  // MCP puts a display name on the tool (`title`), and earlier on its annotations.
  const title = description.title ?? source.title;
  if (typeof title === 'string') {
    out.title = serverTextLine(title, MAX_TITLE_LENGTH, redactor);
  }
  if (typeof source.readOnlyHint === 'boolean') out.readOnlyHint = source.readOnlyHint;
  if (typeof source.destructiveHint === 'boolean') out.destructiveHint = source.destructiveHint;
  if (typeof source.idempotentHint === 'boolean') out.idempotentHint = source.idempotentHint;
  if (typeof source.openWorldHint === 'boolean') out.openWorldHint = source.openWorldHint;
  return out;
}
