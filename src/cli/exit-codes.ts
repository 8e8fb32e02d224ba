import { McpConfigError, McpConnectionError, McpSchemaError, messageOf } from '../core/errors.js';

/**
 * Exit codes of the `mcp-sections` CLI, stable for scripts.
 */
export const EXIT_CODES = Object.freeze({
  /** The command did what was asked. */
  ok: 0,
  /** `call`: the tool ran and returned an error result. */
  toolError: 1,
  /**
   * Bad command line: unknown command or option, missing operand, unknown
   * tool, or arguments the tool's validator refuses (the tool is not run).
   */
  usage: 2,
  /** The config file cannot be read or is invalid. */
  config: 3,
  /** A server could not be connected (or its tools could not be bridged). */
  connection: 4,
  /** Stopped by SIGINT or SIGTERM (after disconnecting). */
  interrupted: 130,
});

/** One of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** Options of {@link CliError}. */
export interface CliErrorOptions extends ErrorOptions {
  /**
   * Lines printed after the `error: ...` line, as they are: candidates one
   * per line, a "did you mean", the offending line of a JSON text.
   * @default []
   */
  readonly details?: readonly string[];
}

/**
 * An error that ends the command with a given exit code, a one-line message
 * and, below it, optional detail lines.
 */
export class CliError extends Error {
  override readonly name: string = 'CliError';
  /** See {@link CliErrorOptions.details}. */
  readonly details: readonly string[];
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    options?: CliErrorOptions,
  ) {
    super(message, options);
    this.details = Object.freeze([...(options?.details ?? [])]);
  }
}

/** `text` on one line: line breaks (and the spaces around them) become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/** Maps what a command threw to an exit code. */
export function asCliError(error: unknown, signal?: AbortSignal): unknown {
  if (error instanceof CliError) return error;
  if (signal?.aborted === true) return new CliError(EXIT_CODES.interrupted, 'interrupted');
  const message = oneLine(messageOf(error));
  if (error instanceof McpConfigError)
    return new CliError(EXIT_CODES.config, message, { cause: error });
  if (error instanceof McpConnectionError || error instanceof McpSchemaError) {
    return new CliError(EXIT_CODES.connection, message, { cause: error });
  }
  return error;
}
