/**
 * Error classes shared by every layer. Each area has one base class with a
 * string `code`; the native `cause` carries what went wrong underneath.
 *
 * This module is pure (its one import, `well-formed.ts`, is too), so the
 * server toolkit can share it with the client side.
 */
import { sliceSafe, toWellFormed } from './well-formed.js';

/** Codes carried by {@link PromptError} and its subclasses. */
export type PromptErrorCode =
  'prompt-validation' | 'prompt-render' | 'prompt-output' | 'prompt-overrides';

/** Base class of errors raised while building or rendering prompts. */
export class PromptError extends Error {
  override readonly name: string = 'PromptError';
  constructor(
    readonly code: PromptErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * A prompt, section or tool definition breaks a rule. Raised at creation
 * time (`PromptTemplate.create`, `Tool.create`, section constructors), never
 * during a conversation.
 */
export class PromptValidationError extends PromptError {
  override readonly name: string = 'PromptValidationError';
  constructor(message: string, options?: ErrorOptions) {
    super('prompt-validation', message, options);
  }
}

/** Rendering failed: a placeholder has no value, or params do not parse. */
export class PromptRenderError extends PromptError {
  override readonly name: string = 'PromptRenderError';
  constructor(message: string, options?: ErrorOptions) {
    super('prompt-render', message, options);
  }
}

/** A model's final answer is not JSON, or does not keep the prompt's declared output. */
export class PromptOutputError extends PromptError {
  override readonly name: string = 'PromptOutputError';
  constructor(message: string, options?: ErrorOptions) {
    super('prompt-output', message, options);
  }
}

/**
 * Prompt overrides cannot be read, written or applied: a malformed file, a
 * name that would leave the store's directory, overrides meant for another
 * prompt, or replacement text that breaks the rules of what it replaces.
 * A stale override is not an error: it is skipped, and an event says so.
 */
export class PromptOverridesError extends PromptError {
  override readonly name: string = 'PromptOverridesError';
  constructor(message: string, options?: ErrorOptions) {
    super('prompt-overrides', message, options);
  }
}

/** Codes carried by {@link McpError} and its subclasses. */
export type McpErrorCode =
  'mcp-config' | 'mcp-connection' | 'mcp-tool' | 'mcp-timeout' | 'mcp-schema' | 'mcp-fatal-tool';

/** Base class of every MCP-related error. */
export class McpError extends Error {
  override readonly name: string = 'McpError';
  constructor(
    readonly code: McpErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A server configuration is invalid; raised before anything is started. */
export class McpConfigError extends McpError {
  override readonly name: string = 'McpConfigError';
  constructor(
    /** Dotted path of the offending field, e.g. `servers[0].name`. */
    readonly field: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super('mcp-config', message, options);
  }
}

/** A server could not be reached, or its connection was lost for good. */
export class McpConnectionError extends McpError {
  override readonly name: string = 'McpConnectionError';
  /** What went wrong, without the server's name: for lists that already name it. */
  readonly reason: string;
  constructor(
    readonly serverName: string,
    /** Transport type, e.g. `stdio` — never the URL's credentials or headers. */
    readonly transport: string,
    message: string,
    options?: ErrorOptions & { readonly reason?: string },
  ) {
    super('mcp-connection', message, options);
    this.reason = options?.reason ?? message;
  }
}

/** A tool call failed at the protocol level. */
export class McpToolError extends McpError {
  override readonly name: string = 'McpToolError';
  constructor(
    readonly serverName: string,
    readonly toolName: string,
    message: string,
    readonly rpcError?: {
      readonly code: number;
      readonly message: string;
      readonly data?: unknown;
    },
    options?: ErrorOptions,
  ) {
    super('mcp-tool', message, options);
  }
}

/** A request did not complete within the server's `timeoutMs`. */
export class McpTimeoutError extends McpError {
  override readonly name: string = 'McpTimeoutError';
  constructor(
    readonly serverName: string,
    readonly timeoutMs: number,
    message: string,
    options?: ErrorOptions,
  ) {
    super('mcp-timeout', message, options);
  }
}

/** A server's tool schema or name cannot be bridged safely. */
export class McpSchemaError extends McpError {
  override readonly name: string = 'McpSchemaError';
  constructor(
    readonly serverName: string,
    readonly toolName: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super('mcp-schema', `tool "${toolName}" of server "${serverName}": ${reason}`, options);
  }
}

/** Text prefix that marks a tool error as fatal (infrastructure failure). */
export const FATAL_PREFIX = '[FATAL] ';

/**
 * A tool reported an infrastructure failure (its error text began with
 * `[FATAL] `). Thrown by `invokeTool` after rollback and after `ToolInvoked`
 * is published; the agent run should stop.
 */
export class McpFatalToolError extends McpError {
  override readonly name: string = 'McpFatalToolError';
  constructor(
    readonly toolName: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super('mcp-fatal-tool', message, options);
  }
}

/**
 * The longest text this library quotes from a server in its own messages
 * (an error page, a JSON-RPC error, a progress message): such text can be
 * megabytes, and reasons reach events, logs and the prompt.
 */
export const MAX_QUOTED_CHARS = 2_000;

/**
 * `text` cut to {@link MAX_QUOTED_CHARS}, saying how much was left out;
 * never inside a surrogate pair, and well-formed (a lone surrogate becomes
 * U+FFFD: such text often goes to a model, whose provider refuses it). Cut
 * only text already masked: a cut before masking could leave part of a
 * secret.
 */
export function boundedQuote(quoted: string): string {
  const text = toWellFormed(quoted);
  if (text.length <= MAX_QUOTED_CHARS) return text;
  const kept = sliceSafe(text, 0, MAX_QUOTED_CHARS);
  return `${kept}… (${text.length - kept.length} more characters)`;
}

/**
 * How far past what it keeps a cut text is masked: room for the longest
 * form of a secret (percent-encoded, spread by invisible characters,
 * escaped as JSON) that begins before the cut.
 */
export const MASK_MARGIN = 65_536;

/**
 * The first `keep` characters of `text` as `mask` makes them, masking
 * only `keep` + {@link MASK_MARGIN} of it: masking a server's megabytes
 * to show a few thousand characters held the event loop for seconds.
 * Undefined when `text` is no longer than that (mask it whole). A secret
 * the window cut in two began at `keep` or later; when masking shortened
 * the text before it, what is kept is shorter by as much, so that its
 * unmasked start never moves into it.
 */
export function maskedHead(
  text: string,
  mask: (text: string) => string,
  keep: number,
): string | undefined {
  if (text.length <= keep + MASK_MARGIN) return undefined;
  const window = sliceSafe(text, 0, keep + MASK_MARGIN);
  const masked = mask(window);
  const shortened = Math.max(0, window.length - masked.length);
  return sliceSafe(masked, 0, Math.max(0, keep - shortened));
}

/**
 * `text` masked by `mask` (when given) and cut as {@link boundedQuote}
 * cuts it, masking only the part it can show (see {@link maskedHead}).
 */
export function maskedQuote(text: string, mask: ((text: string) => string) | undefined): string {
  if (mask === undefined) return boundedQuote(text);
  const head = maskedHead(text, mask, MAX_QUOTED_CHARS);
  if (head === undefined) return boundedQuote(mask(text));
  return `${toWellFormed(head)}… (${text.length - head.length} more characters)`;
}

/**
 * What went wrong, as text: an `Error`'s message, anything else as a
 * string. Never throws: a thrown value that cannot be written as text (an
 * object without a prototype, a throwing getter) is described instead.
 */
export function messageOf(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return 'a thrown value that cannot be written as text';
  }
}
