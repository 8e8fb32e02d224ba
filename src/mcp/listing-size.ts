/**
 * How much of a `tools/list` answer one tool is, for the bound on a whole
 * listing. Over stdio a page may be 10 MB and over HTTP 64 MB, and a
 * listing may have a thousand pages: only a bound on the whole keeps a
 * server from filling memory with what it lists.
 *
 * The size of a value is its length as JSON text (escapes aside) plus
 * {@link CONTAINER_SIZE} for each object and array in it: text of `{}` and
 * `[]` is short, but each costs the heap tens of bytes. Every member of a
 * tool counts: schemas, icons and `_meta` as much as names and descriptions.
 */
import type { Tool as McpToolDescription } from '@modelcontextprotocol/sdk/types.js';
import { MAX_SCHEMA_TEXT_LENGTH, type SchemaSurvey } from './schema/json.js';

/** What an object or array adds to a size, beyond its text: about what it costs in memory. */
export const CONTAINER_SIZE = 32;

/**
 * The size of `tool` (a copy made by `parseToolListing`: plain, its
 * members its own), counted only up to `budget`: past it, where the count
 * stopped. Its input schema is weighed by `survey` (`checkListedSchema`), the
 * one its check at connect reuses, so a listing is walked once. Never
 * throws: what cannot be read is weighed as {@link valueSize} says.
 */
export function listedToolSize(
  tool: McpToolDescription,
  survey: SchemaSurvey | undefined,
  budget: number,
): number {
  let size = 2;
  for (const key in tool) {
    const value: unknown = tool[key as keyof McpToolDescription];
    size += key.length + 4;
    size +=
      key === 'inputSchema'
        ? inputSchemaSize(value, survey, budget - size)
        : valueSize(value, budget - size);
    if (size > budget) break;
  }
  return size;
}

/**
 * From the survey, when it read the whole schema; a schema past its own
 * bound (refused at connect, but held until then), or one that cannot be
 * surveyed, is weighed whole.
 */
function inputSchemaSize(
  schema: unknown,
  survey: SchemaSurvey | undefined,
  budget: number,
): number {
  if (survey === undefined || survey.chars > MAX_SCHEMA_TEXT_LENGTH) {
    return valueSize(schema, budget);
  }
  return survey.chars + CONTAINER_SIZE * survey.containers;
}

/**
 * The size of any value, read only up to `budget`. What cannot be read as
 * JSON, only an in-process server's (a bigint or a function counts as
 * `null`; an object whose getter or proxy throws counts for what was read
 * of it), never stops the count of the rest.
 */
export function valueSize(value: unknown, budget: number): number {
  if (typeof value !== 'object' || value === null) return scalarSize(value);
  let size = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && size <= budget) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) {
      size += scalarSize(node);
      continue;
    }
    size += CONTAINER_SIZE + 2;
    try {
      if (Array.isArray(node)) {
        const length: unknown = node.length;
        const count = typeof length === 'number' ? length : 0;
        size += count; // commas, and nulls for holes: a sparse array past the budget is not read
        for (let index = 0; index < count && size <= budget; index++) {
          const item: unknown = node[index];
          if (typeof item === 'object' && item !== null) pending.push(item);
          else size += scalarSize(item);
        }
      } else {
        for (const key in node) {
          if (!Object.hasOwn(node, key)) continue;
          size += key.length + 4;
          const member: unknown = (node as Record<string, unknown>)[key];
          if (typeof member === 'object' && member !== null) pending.push(member);
          else size += scalarSize(member);
          if (size > budget) break;
        }
      }
    } catch {
      // A getter or proxy that throws: what it would give is not held either.
    }
  }
  return size;
}

/** A scalar's length as JSON text, escapes aside; what JSON cannot carry as `null`. */
function scalarSize(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'number') return String(value).length;
  if (typeof value === 'boolean') return value ? 4 : 5;
  return 4;
}
