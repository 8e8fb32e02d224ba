/**
 * Pins the CLI's exit codes, `CliError`, `oneLine` and `asCliError`: which
 * thrown value becomes which exit code, with a one-line message and the
 * original error as `cause`.
 */
import { describe, expect, it } from 'vitest';
import { CliError, EXIT_CODES, asCliError, oneLine } from '../../src/cli/exit-codes.js';
import {
  McpConfigError,
  McpConnectionError,
  McpSchemaError,
  McpToolError,
  PromptValidationError,
} from '../../src/core/errors.js';

function aborted(): AbortSignal {
  const controller = new AbortController();
  controller.abort(new Error('received SIGINT'));
  return controller.signal;
}

describe('EXIT_CODES', () => {
  it('has the documented, frozen values', () => {
    expect(EXIT_CODES).toEqual({
      ok: 0,
      toolError: 1,
      usage: 2,
      config: 3,
      connection: 4,
      interrupted: 130,
    });
    expect(Object.isFrozen(EXIT_CODES)).toBe(true);
  });
});

describe('CliError', () => {
  it('carries its exit code, message, name and cause', () => {
    const cause = new Error('root');
    const error = new CliError(EXIT_CODES.usage, 'bad flag', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('CliError');
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe('bad flag');
    expect(error.cause).toBe(cause);
  });
});

describe('oneLine', () => {
  it.each([
    ['one line', 'one line'],
    ['first\nsecond', 'first second'],
    ['first  \r\n   second', 'first second'],
    ['a\n\n\n\nb', 'a b'],
    ['a\rb', 'a b'],
    ['  padded\n', 'padded'],
    ['inner   spaces\tstay', 'inner   spaces\tstay'],
    ['\n\n', ''],
    ['', ''],
  ])('%j becomes %j', (text, expected) => {
    expect(oneLine(text)).toBe(expected);
  });
});

describe('asCliError', () => {
  it('returns a CliError unchanged, even when the signal is aborted', () => {
    const error = new CliError(EXIT_CODES.usage, 'usage');
    expect(asCliError(error)).toBe(error);
    expect(asCliError(error, aborted())).toBe(error);
  });

  it('reads anything else thrown after an abort as an interruption', () => {
    const mapped = asCliError(new McpConfigError('x', 'bad'), aborted());
    expect(mapped).toBeInstanceOf(CliError);
    expect(mapped).toMatchObject({ exitCode: 130, message: 'interrupted' });
  });

  it('maps a config error to exit 3 on one line, keeping the cause', () => {
    const error = new McpConfigError('servers[0].name', 'server name "A"\n  must be lower case');
    const mapped = asCliError(error, new AbortController().signal);
    expect(mapped).toBeInstanceOf(CliError);
    expect(mapped).toMatchObject({
      exitCode: EXIT_CODES.config,
      message: 'server name "A" must be lower case',
      cause: error,
    });
  });

  it.each([
    new McpConnectionError('s', 'stdio', 'spawn ENOENT\nat line 2'),
    new McpSchemaError('s', 'tool', 'bad\nschema'),
  ])('maps %s to exit 4', (error) => {
    const mapped = asCliError(error);
    expect(mapped).toBeInstanceOf(CliError);
    expect(mapped).toMatchObject({
      exitCode: EXIT_CODES.connection,
      message: oneLine(error.message),
      cause: error,
    });
    expect((mapped as CliError).message).not.toContain('\n');
  });

  it('leaves other errors and thrown values as they are', () => {
    const plain = new Error('bug');
    const tool = new McpToolError('s', 't', 'rpc');
    const prompt = new PromptValidationError('bad prompt');
    expect(asCliError(plain)).toBe(plain);
    expect(asCliError(tool)).toBe(tool);
    expect(asCliError(prompt)).toBe(prompt);
    expect(asCliError('a string')).toBe('a string');
    expect(asCliError(undefined)).toBe(undefined);
  });
});
