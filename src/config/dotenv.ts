/**
 * A small `.env` reader: `KEY=value` lines, `#` comments, optional
 * `export `, single quotes (literal) and double quotes (`\n`, `\"`, `\\`
 * escapes). Errors name the line number, never its content, because the
 * content is usually a secret.
 */
import { McpConfigError } from '../core/errors.js';

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/;

/**
 * Parses `.env` text into a record.
 *
 * @param source - Named in errors, e.g. the file path.
 * @throws {McpConfigError} naming the line of a malformed entry.
 * @example
 * ```ts
 * parseDotenv('API_TOKEN="abc"\n# comment\nexport REGION=eu', '.env');
 * // { API_TOKEN: 'abc', REGION: 'eu' }
 * ```
 */
export function parseDotenv(text: string, source: string): Record<string, string> {
  // Prototype-free, so a key named `__proto__` is a key like any other.
  const out = Object.create(null) as Record<string, string>;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((line, index) => {
    if (/^\s*(#.*)?$/.test(line)) return;
    const match = LINE.exec(line);
    const key = match?.[1];
    const raw = match?.[2];
    const value = raw === undefined ? undefined : parseValue(raw);
    if (key === undefined || value === undefined) {
      throw new McpConfigError(
        `${source}:${index + 1}`,
        `${source} line ${index + 1}: expected KEY=value with KEY matching [A-Za-z_][A-Za-z0-9_]* ` +
          `and quotes closed on the same line`,
      );
    }
    out[key] = value;
  });
  return out;
}

/** The value of one line, or `undefined` when its quotes do not close. */
function parseValue(raw: string): string | undefined {
  const text = raw.trim();
  if (text.startsWith("'")) {
    const end = text.indexOf("'", 1);
    if (end < 0 || !isOnlyComment(text.slice(end + 1))) return undefined;
    return text.slice(1, end);
  }
  if (text.startsWith('"')) {
    let value = '';
    for (let i = 1; i < text.length; i++) {
      const char = text[i];
      if (char === '\\' && i + 1 < text.length) {
        const next = text[++i];
        value += next === 'n' ? '\n' : next === 'r' ? '\r' : next === 't' ? '\t' : next;
      } else if (char === '"') {
        return isOnlyComment(text.slice(i + 1)) ? value : undefined;
      } else {
        value += char;
      }
    }
    return undefined;
  }
  // Unquoted: a `#` after white space (the one after `=` too) starts a comment.
  return raw.replace(/\s+#.*$/, '').trim();
}

function isOnlyComment(rest: string): boolean {
  return /^\s*(#.*)?$/.test(rest);
}
