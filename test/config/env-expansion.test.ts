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

  it('quotes an unset name only when it reads as a variable name, not a token pasted in its place', () => {
    for (const name of ['GITHUB_PERSONAL_ACCESS_TOKEN', 'api_key', 'Path', 'OAUTH2_TOKEN']) {
      expect(failure(`\${${name}}`).message).toContain(`environment variable ${name} is not set`);
    }
    for (const token of [
      'ghp_R3alT0kenPastedWhereTheNameGoes',
      'AKIAIOSFODNN7EXAMPLE',
      'sk_live_4eC39HqLyjWDarjtT1zdp7dc',
      'sk_test_abcdefghijklmnopqrstu',
    ]) {
      for (const reference of [`\${${token}}`, `\${env:${token}}`]) {
        const message = failure({ env: { TOKEN: `x ${reference}` } }).message;
        expect(message).not.toContain(token);
        expect(message).toContain(
          `named by the \${...} at character 3 (${String(token.length)} characters, not quoted`,
        );
      }
    }
  });

  it('refuses values nested deeper than 64 levels, naming the field, before the stack runs out', () => {
    let deep: unknown = '${TOKEN}';
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    const error = failure({ env: { K: deep } }, { TOKEN: 'secret-value' });
    expect(error.message).toContain('nested deeper than 64 levels');
    expect(error.field.startsWith('mcp_servers.x.env.K[0][0]')).toBe(true);
    let fine: unknown = 'v';
    for (let level = 0; level < 60; level += 1) fine = { k: fine };
    expect(() => expand(fine)).not.toThrow();
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
