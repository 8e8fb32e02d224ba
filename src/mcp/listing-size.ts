/**
 * How much of a `tools/list` answer one tool is, for the bound on a whole
 * listing: every member counts, as JSON text (escapes aside), schemas,
 * icons and `_meta` as much as names and descriptions. Over stdio a page
 * may be 10 MB and over HTTP 64 MB, and a listing may have a thousand
 * pages: only a bound on the whole keeps a server from filling memory
 * with what it lists.
 */
import type { Tool as McpToolDescription } from '@modelcontextprotocol/sdk/types.js';
import { jsonTextChars, listedSchemaChars } from './schema/index.js';

/**
 * The characters of `tool` (a copy made by `parseToolListing`: plain, its
 * members its own), counted only up to `budget`: past it, where the count
 * stopped. The input schema's walk is the one its refusal at connect
 * reuses, so a listing is walked once.
 * @throws what a getter of an in-process server's object throws.
 */
export function listedToolChars(tool: McpToolDescription, budget: number): number {
  let chars = 2;
  for (const key in tool) {
    const value: unknown = tool[key as keyof McpToolDescription];
    chars += key.length + 4;
    chars +=
      key === 'inputSchema'
        ? listedSchemaChars(value, budget - chars)
        : jsonTextChars(value, budget - chars);
    if (chars > budget) break;
  }
  return chars;
}
