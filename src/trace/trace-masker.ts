/**
 * What keeps secrets out of a trace: the same masking as errors and
 * telemetry. Every string of every recorded value is scrubbed of the
 * configured servers' secrets (`env` values, header values, bearer tokens,
 * URL credentials; `SecretRedactor`), values under secret-looking names or
 * marked `x-secret`/`writeOnly` in a tool's schema are replaced by `***`
 * (`maskSecretArguments`) and scrubbed from the rest of the record, and long
 * text is cut. A number is scrubbed as its text (`String(n)`) would be: one
 * whose text holds a secret (an account number in `env`, written back as
 * JSON's number) becomes the string `***`, since a partly masked number is
 * no number.
 */
import type { McpServerConfig } from '../config/server-config.js';
import { toJsonCopy } from '../core/json-copy.js';
import { findToolIn, listTools, type ToolLookup } from '../ecosystem/telemetry.js';
import { maskSecretArguments } from '../tools/secret-arguments.js';
import { SECRET_MASK, scrubSecrets } from '../tools/secret-text.js';
import { SecretRedactor } from '../mcp/redact.js';
import type { ResolvedServerConfig } from '../config/server-config.js';
import type { Tool } from '../tools/tool.js';
import { TraceError } from './errors.js';

/** Default of {@link TraceMaskerOptions.maxTextLength}. */
export const DEFAULT_TRACE_MAX_TEXT_LENGTH = 32_768;

/** Options of {@link TraceMasker}. */
export interface TraceMaskerOptions {
  /** Servers whose secrets are scrubbed from every recorded text. @default none */
  readonly servers?: readonly McpServerConfig[];
  /** Tools whose schemas mark secret arguments. @default none (names decide) */
  readonly tools?: ToolLookup;
  /**
   * Longest string kept in a record; longer text is cut and says by how much.
   * @default DEFAULT_TRACE_MAX_TEXT_LENGTH
   */
  readonly maxTextLength?: number;
}

/** A masked, JSON-safe copy of an event. */
export interface MaskedEvent {
  readonly type: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** Turns events and slice values into masked JSON data for a trace. */
export class TraceMasker {
  readonly #redactors: readonly SecretRedactor[];
  readonly #tools: ToolLookup | undefined;
  readonly #maxText: number;

  /** @throws TraceError `trace-options` when `maxTextLength` is not a positive integer. */
  constructor(options: TraceMaskerOptions = {}) {
    const maxText = options.maxTextLength ?? DEFAULT_TRACE_MAX_TEXT_LENGTH;
    if (!Number.isSafeInteger(maxText) || maxText < 64) {
      throw new TraceError(
        'trace-options',
        `maxTextLength ${String(maxText)} must be an integer of at least 64 (characters)`,
      );
    }
    this.#maxText = maxText;
    this.#tools = options.tools;
    this.#redactors = (options.servers ?? []).map((server) =>
      SecretRedactor.forServer(server as ResolvedServerConfig),
    );
  }

  /**
   * The event's class name and its own fields, masked. `params` of an event
   * naming a known tool (`ToolInvoked`) are masked by that tool's schema.
   */
  event(event: object): MaskedEvent {
    return { type: event.constructor.name, fields: this.#eventFields(toJsonCopy(event)) };
  }

  /**
   * Fields already flattened elsewhere (another process's event stream),
   * masked as {@link event} masks them.
   */
  fields(fields: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
    return this.#eventFields(toJsonCopy(fields));
  }

  /** Any value (a slice's), masked. */
  value(value: unknown): unknown {
    const { masked, secrets } = maskSecretArguments(toJsonCopy(value));
    return this.#strings(masked, secrets);
  }

  /** The text, scrubbed and cut. */
  text(text: string): string {
    return this.#text(text, []);
  }

  /** The tools of the lookup, as a trace lists them; `undefined` without a lookup. */
  tools(): readonly Tool[] | undefined {
    return this.#tools === undefined ? undefined : listTools(this.#tools);
  }

  #eventFields(copy: unknown): Record<string, unknown> {
    const fields = copy as Record<string, unknown>;
    const secrets: string[] = [];
    const toolName = fields['toolName'];
    if ('params' in fields && typeof toolName === 'string') {
      const schema = findToolIn(this.#tools, toolName)?.inputSchema;
      const masked = maskSecretArguments(fields['params'], schema);
      fields['params'] = masked.masked;
      secrets.push(...masked.secrets);
    }
    return this.#clean(fields, secrets);
  }

  #clean(fields: Record<string, unknown>, secrets: string[]): Record<string, unknown> {
    const { masked, secrets: named } = maskSecretArguments(fields);
    return this.#strings(masked, [...secrets, ...named]) as Record<string, unknown>;
  }

  #strings(value: unknown, secrets: readonly string[]): unknown {
    if (typeof value === 'string') return this.#text(value, secrets);
    if (typeof value === 'number') return this.#number(value, secrets);
    if (Array.isArray(value)) return value.map((item) => this.#strings(item, secrets));
    if (value === null || typeof value !== 'object') return value;
    // fromEntries defines own properties: a key named `__proto__` stays data.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        this.#text(key, secrets),
        this.#strings(item, secrets),
      ]),
    );
  }

  /** `SECRET_MASK` for a number whose text holds a secret; the number otherwise. */
  #number(value: number, secrets: readonly string[]): number | string {
    const text = String(value);
    return this.#text(text, secrets) === text ? value : SECRET_MASK;
  }

  #text(text: string, secrets: readonly string[]): string {
    let out = scrubSecrets(text, secrets);
    for (const redactor of this.#redactors) out = redactor.redact(out);
    if (out.length <= this.#maxText) return out;
    const kept = out.slice(0, this.#maxText);
    return `${kept}… [cut: ${out.length - this.#maxText} more characters]`;
  }
}
