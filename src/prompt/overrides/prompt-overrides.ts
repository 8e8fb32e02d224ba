/**
 * The overrides of one prompt under one tag, as a checked, frozen value, and
 * the parser every store ends in: a file, a database row or a literal in
 * code all go through {@link parsePromptOverrides}.
 */
import { z } from 'zod';
import { boundedQuote, PromptOverridesError } from '../../core/errors.js';
import { isPlainRecord } from '../../core/json.js';
import { TOOL_NAME_PATTERN } from '../../tools/tool.js';
import { SECTION_KEY_PATTERN } from '../section.js';
import { CONTENT_HASH_PATTERN } from './content-hash.js';

/** The tag read when none is named. */
export const DEFAULT_OVERRIDES_TAG = 'latest';

/** The version of the overrides document format this library reads and writes. */
export const OVERRIDES_FORMAT_VERSION = 1;

/** Which overrides: a prompt's namespace and key, and a tag (`latest`, `stable`, ...). */
export interface PromptOverridesRef {
  /** The template's `ns`. */
  readonly ns: string;
  /** The template's `key`. */
  readonly key: string;
  /** `^[a-z0-9][a-z0-9._-]{0,63}$`, like keys. */
  readonly tag: string;
}

/** A replacement for a section's body template. */
export interface SectionOverride {
  /** The content hash of the body template this replacement was written against. */
  readonly expectedHash: string;
  /** The replacement: a template with the same placeholder rules as the section's own. */
  readonly body: string;
}

/** A replacement for a tool's description. */
export interface ToolOverride {
  /** The content hash of the description this replacement was written against. */
  readonly expectedHash: string;
  /** The replacement description, trimmed and not empty. */
  readonly description: string;
}

/** The overrides of one prompt under one tag. */
export interface PromptOverrides extends PromptOverridesRef {
  /** Section body replacements by dotted section path (`parent.child`). */
  readonly sections: Readonly<Record<string, SectionOverride>>;
  /** Tool description replacements by tool name (bridged name, for MCP tools). */
  readonly tools: Readonly<Record<string, ToolOverride>>;
}

/** Dotted section paths as headings show them: keys joined by `.`. */
const SECTION_PATH_PATTERN = /^[a-z0-9][a-z0-9._-]{0,1023}$/;

/** How a value read from a document is shown in an error. */
type Shown = (value: unknown) => string;

/** Values as they are, shortened: the application's own (a literal, a seed). */
const quoted: Shown = (value) =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? boundedQuote(JSON.stringify(value))
    : kindOf(value);

/**
 * Values by their kind and length only: a stored document may be any file
 * put in its place (a `.env` saved as `latest.yaml`), and its text a
 * credential.
 */
const described: Shown = (value) =>
  typeof value === 'string' ? `(a text of ${String(value.length)} characters)` : kindOf(value);

/**
 * A member's name read from a document, for an error: quoted when it is a
 * short word of printable ASCII (a misspelt `expected_hash`, a tool name
 * `Search!`: names, not the values a credential would be), else described
 * as `show` describes values.
 */
function shownKey(name: string, show: Shown): string {
  return show === quoted || /^[!-~]{1,64}$/.test(name) ? JSON.stringify(name) : show(name);
}

/** The schemas of a document, their errors showing values as `show` does. */
function documentSchemas(show: Shown) {
  const keyOf = (what: string): z.ZodString =>
    z.string({ error: `${what} must be a string` }).regex(SECTION_KEY_PATTERN, {
      error: (issue) => `${what} ${show(issue.input)} must match ${SECTION_KEY_PATTERN.source}`,
    });
  const hash = z.string({ error: 'must be a string' }).regex(CONTENT_HASH_PATTERN, {
    error: (issue) =>
      `must be a lowercase hex SHA-256 digest (64 characters), received ${show(issue.input)}`,
  });
  return {
    section: z.strictObject({
      expectedHash: hash,
      body: z.string({ error: 'must be a string' }),
    }),
    tool: z.strictObject({
      expectedHash: hash,
      description: z
        .string({ error: 'must be a string' })
        .trim()
        .min(1, { error: 'must not be empty' }),
    }),
    document: z.strictObject({
      version: z
        .literal(OVERRIDES_FORMAT_VERSION, {
          error: (issue) => `must be ${OVERRIDES_FORMAT_VERSION}, received ${show(issue.input)}`,
        })
        .optional(),
      ns: keyOf('ns'),
      key: keyOf('key'),
      tag: keyOf('tag'),
      // Read entry by entry below: a schema for records would assign a key such
      // as `__proto__` (a valid tool name) instead of defining it.
      sections: z.unknown().optional(),
      tools: z.unknown().optional(),
    }),
  };
}

const SCHEMAS = { quoted: documentSchemas(quoted), described: documentSchemas(described) };

/** Options of {@link parsePromptOverrides}. */
export interface ParsePromptOverridesOptions {
  /** Named in error messages, e.g. the file the value was read from. @default 'prompt overrides' */
  readonly source?: string;
  /** Require `version` (a stored document must say which format it is). @default false */
  readonly requireVersion?: boolean;
  /**
   * Quote bad values in errors, shortened. A store reading files passes
   * false: what sits in a file's place may be any text (a credential), and
   * its errors name the field and the kind and length of the value only.
   * @default true
   */
  readonly quoteValues?: boolean;
}

const parsed = new WeakSet<PromptOverrides>();

/**
 * Checks `value` and returns it as frozen {@link PromptOverrides}: `ns`,
 * `key` and `tag` match the key rule, every section path and tool name is
 * well-formed, every `expectedHash` is a content hash, every description is
 * non-empty; unknown fields are errors (a misspelt field would otherwise be
 * ignored). A stored document also carries `version: 1`.
 *
 * @throws PromptOverridesError naming the source, the field and what is expected.
 */
export function parsePromptOverrides(
  value: unknown,
  options: ParsePromptOverridesOptions = {},
): PromptOverrides {
  if (parsed.has(value as PromptOverrides)) return value as PromptOverrides;
  const source = options.source ?? 'prompt overrides';
  const fail = (message: string, cause?: unknown): PromptOverridesError =>
    new PromptOverridesError(`${source}: ${message}`, cause === undefined ? {} : { cause });
  const show = options.quoteValues === false ? described : quoted;
  const schemas = options.quoteValues === false ? SCHEMAS.described : SCHEMAS.quoted;
  if (!isPlainRecord(value)) {
    throw fail(`expected an object with ns, key, tag, sections and tools, received ${show(value)}`);
  }
  const head = schemas.document.safeParse(value, { reportInput: true });
  if (!head.success) throw fail(describeIssues(head.error.issues, [], show), head.error);
  if (options.requireVersion === true && head.data.version === undefined) {
    throw fail(`version: missing; expected ${OVERRIDES_FORMAT_VERSION}`);
  }
  const sections = readEntries(head.data.sections, 'sections', fail, show, (name, entry) => {
    if (!SECTION_PATH_PATTERN.test(name)) {
      return `sections: ${shownKey(name, show)} is not a section path (dotted keys matching ${SECTION_KEY_PATTERN.source})`;
    }
    return schemas.section.safeParse(entry, { reportInput: true });
  });
  const tools = readEntries(head.data.tools, 'tools', fail, show, (name, entry) => {
    if (!TOOL_NAME_PATTERN.test(name)) {
      return `tools: ${shownKey(name, show)} is not a tool name (${TOOL_NAME_PATTERN.source})`;
    }
    return schemas.tool.safeParse(entry, { reportInput: true });
  });
  const overrides: PromptOverrides = Object.freeze({
    ns: head.data.ns,
    key: head.data.key,
    tag: head.data.tag,
    sections,
    tools,
  });
  parsed.add(overrides);
  return overrides;
}

/** The document written for `overrides`: the format version first, then the value. */
export function overridesDocument(overrides: PromptOverrides): Record<string, unknown> {
  return {
    version: OVERRIDES_FORMAT_VERSION,
    ns: overrides.ns,
    key: overrides.key,
    tag: overrides.tag,
    sections: plainCopy(overrides.sections),
    tools: plainCopy(overrides.tools),
  };
}

/**
 * Checks a ref's three names against the key rule.
 * @throws PromptOverridesError quoting the bad name.
 */
export function checkOverridesRef(ref: PromptOverridesRef): PromptOverridesRef {
  for (const field of ['ns', 'key', 'tag'] as const) {
    const name: unknown = (ref as unknown as Record<string, unknown>)[field];
    if (typeof name !== 'string' || !SECTION_KEY_PATTERN.test(name)) {
      throw new PromptOverridesError(
        `overrides ${field} ${JSON.stringify(name) ?? String(name)} must match ${SECTION_KEY_PATTERN.source}`,
      );
    }
  }
  return ref;
}

type EntryCheck<T> = (
  name: string,
  entry: unknown,
) => string | { success: true; data: T } | { success: false; error: z.ZodError };

function readEntries<T>(
  value: unknown,
  field: string,
  fail: (message: string, cause?: unknown) => PromptOverridesError,
  show: Shown,
  check: EntryCheck<T>,
): Readonly<Record<string, T>> {
  const entries = Object.create(null) as Record<string, T>;
  if (value === undefined) return Object.freeze(entries);
  if (!isPlainRecord(value)) {
    throw fail(`${field}: expected an object keyed by name, received ${show(value)}`);
  }
  for (const [name, entry] of Object.entries(value)) {
    const result = check(name, entry);
    if (typeof result === 'string') throw fail(result);
    if (!result.success) {
      throw fail(describeIssues(result.error.issues, [field, name], show), result.error);
    }
    // A null-prototype object: `__proto__` is an own key like any other.
    entries[name] = Object.freeze(result.data);
  }
  return Object.freeze(entries);
}

function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  prefix: readonly string[],
  show: Shown,
): string {
  return issues
    .map((issue) => {
      const path = [...prefix, ...issue.path.map(String)];
      const where = path.map((part) => (/^[A-Za-z_]\w*$/.test(part) ? part : JSON.stringify(part)));
      const message =
        issue.code === 'unrecognized_keys'
          ? `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => shownKey(key, show)).join(', ')}`
          : issue.message;
      return where.length === 0 ? message : `${where.join('.')}: ${message}`;
    })
    .join('; ');
}

/** What a value is, for an error, without its text. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Map || value instanceof Set) return 'a YAML !!omap or !!set';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function plainCopy<T extends object>(record: Readonly<Record<string, T>>): Record<string, T> {
  const copy: Record<string, T> = {};
  for (const [name, entry] of Object.entries(record)) {
    // defineProperty: `__proto__` stays an own key, written out like the others.
    Object.defineProperty(copy, name, {
      value: { ...entry },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}
