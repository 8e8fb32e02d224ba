/**
 * A validator's own synchronous check, which `invokeTool` calls instead of
 * zod's machinery when a tool's params carry one. The zod schema stays the
 * public contract (`tool.params.safeParse` gives the same verdicts and
 * messages); this is only the shorter way to the same answer, for the
 * validators the library builds itself (MCP tool schemas).
 */
import type { z } from 'zod';

/** Where a direct check is kept on a zod schema. */
const DIRECT_CHECK = Symbol('mcp-sections.directCheck');

/** One problem with the arguments: where, and the sentence. Empty list: valid. */
export type DirectCheck = (
  value: unknown,
) => readonly { readonly path: readonly PropertyKey[]; readonly message: string }[];

/** Attaches `check` to `schema` (which must give the same verdicts and messages) and returns it. */
export function withDirectCheck<S extends z.ZodType>(schema: S, check: DirectCheck): S {
  Object.defineProperty(schema, DIRECT_CHECK, { value: check });
  return schema;
}

/** The direct check attached to `schema`, if any. */
export function directCheckOf(schema: z.ZodType): DirectCheck | undefined {
  return (schema as unknown as { [DIRECT_CHECK]?: DirectCheck })[DIRECT_CHECK];
}
