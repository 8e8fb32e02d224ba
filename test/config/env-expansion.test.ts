import { describe, expect, it } from 'vitest';
import { McpConfigError } from '../../src/core/errors.js';
import { expandEnv } from '../../src/config/env-expansion.js';

const expand = (value: unknown, env: Record<string, string | undefined> = {}): unknown =>
  expandEnv(value, env, 'mcp_servers.x', 'config.yaml');

function failure(value: unknown, env: Record<string, string | undefined> = {}): McpConfigError {
  try {
    expand(value, env);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigError);
    return error as McpConfigError;
  }
  throw new Error('expected an McpConfigError');
}

describe('expandEnv', () => {
  it('expands ${NAME}, ${env:NAME} and ${NAME:-default} in strings nested in lists and maps', () => {
    expect(
      expand(
        { args: ['--token', '${TOKEN}'], env: { HOME: '${env:HOME_DIR}', MODE: '${MODE:-dev}' } },
        { TOKEN: 't-1', HOME_DIR: '/h', MODE: '' },
      ),
    ).toEqual({ args: ['--token', 't-1'], env: { HOME: '/h', MODE: 'dev' } });
  });

  it('leaves keys, numbers and $$ alone', () => {
    expect(expand({ '${KEY}': 3, cost: '5$$' })).toEqual({ '${KEY}': 3, cost: '5$' });
  });

  it('keeps a key named __proto__ as a key', () => {
    const out = expand(JSON.parse('{"__proto__": "${A}"}'), { A: 'a' }) as object;
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe('a');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it('names an unset variable and where it is used, never a value', () => {
    const error = failure({ args: ['ok', '${MISSING}'] }, { OTHER: 'secret-value' });
    expect(error.field).toBe('mcp_servers.x.args[1]');
    expect(error.message).toContain('environment variable MISSING is not set');
    expect(error.message).not.toContain('secret-value');
  });

  it('does not read inherited members as variables', () => {
    expect(failure('${constructor}').message).toContain('constructor is not set');
  });

  it('refuses an unclosed or malformed reference', () => {
    expect(failure('${OPEN').message).toContain('is not closed');
    expect(failure('${not a name}').message).toContain('is not a variable reference');
  });

  it('names the position and length of a malformed reference, never its contents', () => {
    const error = failure({ headers: { Authorization: 'Bearer ${ghp_S3cr3tT0ken-value}' } });
    expect(error.field).toBe('mcp_servers.x.headers.Authorization');
    expect(error.message).toContain('the ${...} at character 8 (24 characters)');
    expect(error.message).not.toContain('ghp_');
    expect(error.message).not.toContain('S3cr3t');
    expect(failure('p@${hunter2 is my password}').message).not.toContain('hunter2');
    expect(failure('ab${OPEN').message).toContain('"${" at character 3 is not closed');
  });
});
