import { PromptRenderError, PromptValidationError } from '../core/errors.js';

const TOKEN = /\$(?:\$|\{([^}]*)\}|\{)/g;
const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A parsed template: literal text and placeholders, in order. */
export type TemplatePart = { readonly text: string } | { readonly placeholder: string };

/**
 * Removes the indentation common to every non-blank line, empties
 * whitespace-only lines, then trims, so templates can be written indented
 * inside code.
 */
export function dedent(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let indent = Infinity;
  for (const line of lines) {
    if (line.trim().length === 0) continue;
    indent = Math.min(indent, line.length - line.trimStart().length);
  }
  const cut = Number.isFinite(indent) ? indent : 0;
  // Whitespace-only lines become empty, so a blank line in the output is truly blank.
  return lines
    .map((line) => (line.trim().length === 0 ? '' : line.slice(cut)))
    .join('\n')
    .trim();
}

/**
 * A rendered body without blank lines at its edges and trailing
 * whitespace: the template was trimmed already, and what a value put at
 * the start (the indentation of a code block) is kept.
 */
export function trimBodyEdges(text: string): string {
  return text.replace(/^(?:[ \t]*(?:\r\n?|\n))+/, '').trimEnd();
}

/**
 * Splits a template into literal text and `${name}` placeholders; `$$` is a
 * literal `$`.
 *
 * @throws PromptValidationError on an unterminated `${` or a bad name.
 */
export function parseTemplate(template: string, where: string): readonly TemplatePart[] {
  const parts: TemplatePart[] = [];
  let literal = '';
  let last = 0;
  for (const match of template.matchAll(TOKEN)) {
    literal += template.slice(last, match.index);
    last = match.index + match[0].length;
    if (match[0] === '$$') {
      literal += '$';
      continue;
    }
    const name = match[1];
    if (name === undefined) {
      throw new PromptValidationError(`${where}: unterminated "\${" at offset ${match.index}`);
    }
    if (!PLACEHOLDER_NAME.test(name)) {
      throw new PromptValidationError(
        `${where}: placeholder "\${${name}}" must be an identifier matching ${PLACEHOLDER_NAME.source}`,
      );
    }
    if (literal.length > 0) parts.push({ text: literal });
    literal = '';
    parts.push({ placeholder: name });
  }
  literal += template.slice(last);
  if (literal.length > 0) parts.push({ text: literal });
  return Object.freeze(parts);
}

/** Names of the placeholders in parsed parts, without repeats. */
export function placeholderNames(parts: readonly TemplatePart[]): readonly string[] {
  const names = new Set<string>();
  for (const part of parts) if ('placeholder' in part) names.add(part.placeholder);
  return [...names];
}

/**
 * Fills placeholders from `values`.
 * @throws PromptRenderError when a value is missing.
 */
export function fillTemplate(
  parts: readonly TemplatePart[],
  values: Readonly<Record<string, unknown>>,
  where: string,
): string {
  let out = '';
  for (const part of parts) {
    if ('text' in part) {
      out += part.text;
      continue;
    }
    const value = Object.hasOwn(values, part.placeholder) ? values[part.placeholder] : undefined;
    if (value === undefined || value === null) {
      throw new PromptRenderError(`${where}: no value for placeholder "\${${part.placeholder}}"`);
    }
    out += formatValue(value);
  }
  return out;
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  // Objects and arrays read best as JSON; what JSON cannot show is named by its type.
  const json: string | undefined = JSON.stringify(value);
  return json ?? typeof value;
}
