/**
 * Tool names as text-protocol agents write them.
 *
 * Agents address a tool as `server.tool`. Some model APIs forbid `.` in
 * function names, so bridged names use `server__tool` instead; both forms
 * are accepted and normalised to the dotted one.
 */
import { describeSent } from '../core/describe-sent.js';

/**
 * A tool name could not be split into a server and a tool.
 *
 * @example
 * ```ts
 * try {
 *   splitToolName('get_pods');
 * } catch (error) {
 *   if (error instanceof ToolNameError) console.log(error.toolName); // "get_pods"
 * }
 * ```
 */
export class ToolNameError extends Error {
  override readonly name: string = 'ToolNameError';
  /** Stable machine-readable code, for callers that switch on it. */
  readonly code = 'tool-name' as const;
  constructor(
    /** The name as it was given, before normalisation; for a name that is not a string, what was given. */
    readonly toolName: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The right form, as messages show it. */
const EXAMPLE = '"server.tool" (e.g. "kubernetes.get_pods")';

// Each part: an ASCII word character, then word characters or hyphens. Spelled
// out instead of `\w` so the rule does not depend on regex flags.
const QUALIFIED_NAME = /^([A-Za-z0-9_][A-Za-z0-9_-]*)\.([A-Za-z0-9_][A-Za-z0-9_-]*)$/;

/**
 * Rewrites a bridged `server__tool` name to `server.tool`.
 *
 * Only the first `__` is replaced, because tool names themselves may contain
 * double underscores. A name that already has a `.` is returned unchanged:
 * it is in the dotted form, or it is invalid, and
 * {@link splitToolName} reports either case.
 *
 * @example
 * ```ts
 * normalizeToolName('kubernetes-server__get_pods'); // "kubernetes-server.get_pods"
 * normalizeToolName('server__tool__extra'); // "server.tool__extra"
 * normalizeToolName('server.tool'); // "server.tool"
 * ```
 *
 * @throws {@link ToolNameError} when `name` is not a string.
 */
export function normalizeToolName(name: string): string {
  checkString(name);
  if (name.includes('.')) return name;
  const at = name.indexOf('__');
  return at === -1 ? name : `${name.slice(0, at)}.${name.slice(at + 2)}`;
}

/**
 * Splits `server.tool` (or bridged `server__tool`) into its two parts.
 *
 * Each part must start with an ASCII letter, digit or `_` and continue with
 * those or `-`.
 *
 * @throws {@link ToolNameError} when the normalised name is not of that form,
 * or `name` is not a string; the message quotes the name (or says what was
 * given) and shows an example of the right form.
 *
 * @example
 * ```ts
 * splitToolName('kubernetes.get_pods'); // { server: "kubernetes", tool: "get_pods" }
 * splitToolName('kubernetes__get_pods'); // { server: "kubernetes", tool: "get_pods" }
 * splitToolName('server.tool.extra'); // throws ToolNameError
 * ```
 */
export function splitToolName(name: string): { server: string; tool: string } {
  const match = QUALIFIED_NAME.exec(normalizeToolName(name));
  const server = match?.[1];
  const tool = match?.[2];
  if (server === undefined || tool === undefined) {
    throw new ToolNameError(name, `tool name ${describeSent(name)} must look like ${EXAMPLE}`);
  }
  return { server, tool };
}

/**
 * @throws {@link ToolNameError} for a name that is not a string, whose
 *   `toolName` is then a description of what was given.
 */
function checkString(name: unknown): asserts name is string {
  if (typeof name === 'string') return;
  const given = describeSent(name);
  throw new ToolNameError(given, `tool name must be a string like ${EXAMPLE}, received ${given}`);
}
