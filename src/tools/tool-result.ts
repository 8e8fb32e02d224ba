/**
 * The outcome of a tool call, as the model will see it. Expected failures
 * are values (`success: false`), not exceptions.
 */
export class ToolResult<T = unknown> {
  private constructor(
    readonly message: string,
    readonly value: T,
    readonly success: boolean,
  ) {
    Object.freeze(this);
  }

  /** A successful result. @default message 'OK' */
  static ok<T>(value: T, message = 'OK'): ToolResult<T> {
    return new ToolResult(message, value, true);
  }

  /** A failed result; the model may retry. @default value null */
  static error<T = null>(message: string, value: T = null as T): ToolResult<T> {
    return new ToolResult(message, value, false);
  }

  /** True for a value built by {@link ToolResult.ok} or {@link ToolResult.error}. */
  static is(value: unknown): value is ToolResult {
    return value instanceof ToolResult;
  }
}
