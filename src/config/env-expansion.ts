/**
 * `${VAR}` expansion in configuration values, everywhere: in strings nested
 * in maps and in lists. Keys are left alone.
 *
 * - `${NAME}`: the variable's value; an unset variable is an error naming
 *   it, so a missing secret fails at load time, not as a confusing 401 later.
 * - `${NAME:-default}`: the default when the variable is unset or empty.
 * - `${env:NAME}`: VS Code's spelling of `${NAME}`.
 * - `$$`: a literal `$`.
 */
import { McpConfigError } from '../core/errors.js';
import { isPlainRecord } from '../core/json.js';

/** Variables available to expansion. */
export type EnvironmentVariables = Readonly<Record<string, string | undefined>>;

const REFERENCE = /\$\$|\$\{([^}]*)\}|\$\{/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A word of a variable name: one case, or capitalized, digits anywhere; 15 characters at most. */
const NAME_WORD = /^(?=.{0,15}$)(?:[A-Z0-9]*|[a-z0-9]*|[A-Z][a-z0-9]*)$/;

/** How deep values nest at most: no configuration nests so deep, and expanding deeper would overflow the stack. */
const MAX_DEPTH = 64;

/**
 * A name as people name variables: words of one case or capitalized
 * (`GITHUB_TOKEN`, `api_key`, `Path`), none longer than 15 characters. A token pasted
 * between the braces (`ghp_` and 36 characters of both cases, an AWS key
 * id, `sk_live_…`) is a valid name too, but not one of these, and an
 * unset one is not quoted.
 */
function looksLikeVariableName(name: string): boolean {
  return name.length <= 64 && name.split('_').every((word) => NAME_WORD.test(word));
}

/**
 * Expands every string inside `value`.
 *
 * @param field - Dotted path of `value`, for errors (e.g. `mcp_servers.github`).
 * @param source - The file, for errors.
 * @param taken - Told every value taken from `env` (not a default), and
 *   the field it went into: it may be a secret (see `expandedSecrets`).
 * @throws {McpConfigError} naming the field and the variable when a variable
 *   is unset, or the field and the reference's position and length when a
 *   reference is malformed. Values, and what a malformed reference holds,
 *   are never quoted in errors.
 * @example
 * ```ts
 * expandEnv({ args: ['--token', '${TOKEN}'] }, { TOKEN: 't' }, 'mcp_servers.x', 'config.yaml');
 * // { args: ['--token', 't'] }
 * ```
 */
export function expandEnv(
  value: unknown,
  env: EnvironmentVariables,
  field: string,
  source: string,
  taken?: (value: string, field: string) => void,
  depth = 0,
): unknown {
  if (typeof value === 'string') return expandString(value, env, field, source, taken);
  if (typeof value === 'object' && value !== null && depth >= MAX_DEPTH) {
    throw new McpConfigError(
      field,
      `${source}: ${field}: nested deeper than ${String(MAX_DEPTH)} levels; a configuration value is a string, a list or a map of them`,
    );
  }
  if (Array.isArray(value)) {
    return value.map((item: unknown, index) =>
      expandEnv(item, env, `${field}[${index}]`, source, taken, depth + 1),
    );
  }
  // A Map or a Set (YAML's `!!omap`, `!!set`) is left for the schema to refuse: read
  // as an object it has no entries, and an `env` so written was dropped whole.
  if (isPlainRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty: a key named `__proto__` stays a key.
      Object.defineProperty(out, key, {
        value: expandEnv(item, env, `${field}.${key}`, source, taken, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

function expandString(
  text: string,
  env: EnvironmentVariables,
  field: string,
  source: string,
  taken: ((value: string, field: string) => void) | undefined,
): string {
  return text.replace(REFERENCE, (match: string, inner: string | undefined, offset: number) => {
    if (match === '$$') return '$';
    if (inner === undefined) {
      throw new McpConfigError(
        field,
        `${source}: ${field}: "\${" at character ${offset + 1} is not closed; ` +
          `write \${NAME} or $$ for a literal $`,
      );
    }
    // VS Code writes `${env:NAME}`; the same variable.
    const reference = inner.startsWith('env:') ? inner.slice(4) : inner;
    const separator = reference.indexOf(':-');
    const name = separator < 0 ? reference : reference.slice(0, separator);
    if (!NAME.test(name)) {
      // Not quoted: what sits between the braces may be the secret itself
      // (a token pasted in place of a variable name).
      throw new McpConfigError(
        field,
        `${source}: ${field}: the \${...} at character ${offset + 1} (${match.length} characters) ` +
          `is not a variable reference; write \${NAME}, \${NAME:-default} or \${env:NAME}, ` +
          `where NAME matches [A-Za-z_][A-Za-z0-9_]*, or $$ for a literal $`,
      );
    }
    const current = Object.hasOwn(env, name) ? env[name] : undefined;
    if (separator >= 0 && (current === undefined || current === '')) {
      return reference.slice(separator + 2); // a default is the file's own text
    }
    if (current === undefined) {
      // Quoted only when it reads as a name: a token pasted between the braces is a valid name too.
      const named = looksLikeVariableName(name)
        ? `environment variable ${name}`
        : `the environment variable named by the \${...} at character ${offset + 1} ` +
          `(${name.length} characters, not quoted: it does not read as a variable name and may be a pasted secret)`;
      const fix = looksLikeVariableName(name) ? `\${${name}:-default}` : '${NAME:-default}';
      throw new McpConfigError(
        field,
        `${source}: ${field}: ${named} is not set; set it in the environment ` +
          `or in .env beside the config file, or write ${fix}`,
      );
    }
    taken?.(current, field);
    return current;
  });
}
