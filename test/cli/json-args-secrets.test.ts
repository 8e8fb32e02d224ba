/**
 * A JSON syntax error in `call`'s arguments shows the line it is on, with
 * the contents of string values left out: they may be secrets (a password
 * typed on the command line, a token piped in with `-`).
 */
import { describe, expect, it } from 'vitest';
import { CliError, EXIT_CODES } from '../../src/cli/exit-codes.js';
import { hideStringValues, parseCallArguments } from '../../src/cli/json-args.js';
import { freePort } from '../support/ports.js';
import { runCliProcess } from './helpers.js';
import { configDir } from './mcp-host.js';

const SECRET = 'hunter2-Secret-Value';

function syntaxError(text: string): CliError {
  try {
    parseCallArguments(text);
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error(`${text} parsed`);
}

describe('JSON syntax errors and string values', () => {
  it('show the line with string values hidden and the caret where the error is', () => {
    const error = syntaxError(`{"password": "${SECRET}", "retries": tru}`);
    expect(error.message).toBe(
      'invalid JSON arguments at line 1, column 49: expected a value, found "tru"',
    );
    expect(error.details).toEqual(['  {"password": "…", "retries": tru}', `  ${' '.repeat(29)}^`]);
  });

  it('hide an unterminated string value and a value with a bad escape', () => {
    const open = syntaxError(`{"password": "${SECRET}`);
    expect(open.details.join('\n')).not.toContain('hunter2');
    expect(open.details[0]).toBe('  {"password": "…');
    const escape = syntaxError(`{"password": "hunter2\\qSecret"}`);
    expect(`${escape.message}\n${escape.details.join('\n')}`).not.toMatch(/hunter2|Secret/);
    expect(escape.message).toContain('found "\\\\q"');
    expect(escape.details).toEqual(['  {"password": "…"}', `  ${' '.repeat(14)}^`]);
  });

  it('hide a value without quotes that starts like a number or a literal, in the message too', () => {
    for (const value of ['3f9a8b7c6d5e4f3a2b1c', 'truesecretvalue', 'nullish_secret']) {
      const error = syntaxError(`{"token": ${value}}`);
      expect(`${error.message}\n${error.details.join('\n')}`).not.toMatch(/f9a8|secret/);
      expect(error.message).toMatch(/found the rest of a value without quotes/);
    }
  });

  it('hide every value of a long line, and keep its names and literals', () => {
    const pairs = Array.from({ length: 2_000 }, (_, i) => `"k${i}": "v${i}", "n${i}": 12`);
    const line = `{${pairs.join(', ')}, "bad" }`;
    const shown = hideStringValues(line, line.length - 3);
    expect(shown.line).toBe(
      `{${pairs.map((_, i) => `"k${i}": "…", "n${i}": 12`).join(', ')}, "…" }`,
    );
  });

  it('hide a value single-quoted by mistake, in the message and the line', () => {
    const error = syntaxError(`{"password": '${SECRET}', "retries": 3}`);
    expect(`${error.message}\n${error.details.join('\n')}`).not.toMatch(/hunter2|Secret/);
    expect(error.message).toBe(
      'invalid JSON arguments at line 1, column 14: expected a value, found a single-quoted string (JSON strings take double quotes)',
    );
    expect(error.details).toEqual([`  {"password": '…', "retries": 3}`, `  ${' '.repeat(13)}^`]);
  });

  it('hide a value written without quotes or in backticks, as a property name they are not', () => {
    for (const written of [SECRET, `\`${SECRET}\``]) {
      const error = syntaxError(`{"password": ${written}, "retries": 3}`);
      expect(`${error.message}\n${error.details.join('\n')}`).not.toMatch(/hunter2|Secret/);
    }
    // true, false, null and numbers, and their starts, are shown: they say what went wrong.
    expect(syntaxError('{"retries": tru}').message).toContain('found "tru"');
    expect(syntaxError('{"a": 1, b: 2}').details[0]).toBe('  {"a": 1, b: 2}');
  });

  it('say that text nested past the stack cannot be placed, as a usage error', () => {
    const deep = `{"m":${'['.repeat(100_000)}${']'.repeat(99_999)}}`;
    const error = syntaxError(deep);
    expect(error.exitCode).toBe(EXIT_CODES.usage);
    expect(error.message).toBe(
      'invalid JSON arguments: nested too deeply to say where (the tool was not called)',
    );
  });

  it('hideStringValues keeps property names and empty strings, and moves the column', () => {
    expect(hideStringValues('{"a": "xyz", "b": "", "c": 1 2}', 30)).toEqual({
      line: '{"a": "…", "b": "", "c": 1 2}',
      column: 28,
    });
    expect(hideStringValues('["one", "two"', 14)).toEqual({ line: '["…", "…"', column: 10 });
  });

  it('never echo a value read from stdin', async () => {
    const dir = await configDir('cli-json-secrets');
    try {
      const config = await dir.write('servers.json', {
        srv: { type: 'http', url: `http://127.0.0.1:${await freePort()}/mcp` },
      });
      const run = await runCliProcess(['call', config, 'srv.login', '-'], {
        stdin: `{\n  "user": "me",\n  "token": "${SECRET}" "oops"\n}\n`,
      });
      expect(run.code).toBe(EXIT_CODES.usage);
      expect(run.stderr).toContain('line 3, column');
      expect(run.stderr).toContain('"token": "…" "…"');
      expect(run.stderr).not.toContain(SECRET);
    } finally {
      await dir.remove();
    }
  });
});
