import { z } from 'zod';
import { describeSent } from '../core/describe-sent.js';
import { characterCount } from '../core/well-formed.js';
import { PromptValidationError } from '../core/errors.js';
import { type DirectCheck, directCheckOf } from './direct-check.js';
import type { ToolContext } from './tool-context.js';
import { NO_EXAMPLES, type ToolExample, checkToolExamples } from './tool-examples.js';
import type { ToolResult } from './tool-result.js';

/** Tool names: lower-case letters, digits, `_` and `-`, 1–64 characters. */
export const TOOL_NAME_PATTERN = /^[a-z0-9_-]{1,64}$/;

/**
 * Longest tool description, after trimming, in characters: Unicode code
 * points (see {@link characterCount}), so an emoji counts once.
 */
export const MAX_TOOL_DESCRIPTION_LENGTH = 200;

/** A JSON Schema object as sent to an LLM API. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** Hints about a tool's behaviour (the MCP tool annotations). */
export interface ToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** Where a tool comes from; MCP tools name their server and wire name. */
export type ToolOrigin =
  | { readonly kind: 'native' }
  | {
      readonly kind: 'mcp';
      readonly server: string;
      /** The tool's name on its server, as the wire and configs name it. */
      readonly originalName: string;
      /**
       * The original name as events and messages show it, when that differs:
       * the server's secrets masked (a server may put one in its tool's name).
       */
      readonly shownName?: string;
    };

/** An MCP tool's original name as events and messages show it (see {@link ToolOrigin}). */
export function shownOriginalName(origin: {
  readonly originalName: string;
  readonly shownName?: string;
}): string {
  return origin.shownName ?? origin.originalName;
}

/** Handler of a tool: validated params in, result out. */
export type ToolHandler<P, R> = (
  params: P,
  context: ToolContext,
) => ToolResult<R> | Promise<ToolResult<R>>;

/** Options of {@link Tool.create}. */
export interface ToolOptions<S extends z.ZodType, R> {
  /** `^[a-z0-9_-]{1,64}$`. */
  readonly name: string;
  /** 1–200 characters (code points) after trimming. */
  readonly description: string;
  /**
   * Validates the arguments before the handler runs: a zod schema, or a
   * function returning one, called once when the tool is first validated
   * (for validators that are costly to build, such as converted JSON Schemas).
   */
  readonly params: S | (() => S);
  readonly handler: ToolHandler<z.output<S>, R>;
  /**
   * The JSON Schema shown to the model. @default derived from `params`
   * with `z.toJSONSchema` (MCP tools pass the server's schema unchanged).
   */
  readonly inputSchema?: JsonSchema;
  readonly annotations?: ToolAnnotations;
  /** @default { kind: 'native' } */
  readonly origin?: ToolOrigin;
  /**
   * Representative calls, shown in the "Tools:" block of the section that
   * offers the tool. Each `input` must parse with `params`: checked at
   * creation, at run time rather than by type, so options objects stay
   * assignable across schemas. @default none
   */
  readonly examples?: readonly ToolExample[];
  /**
   * @internal Whether a call, about to start, may write session state in
   * its own async context (directly, through reducers of the events it
   * dispatches, or in work it awaits). `invokeTool` runs such a call in a
   * scope of its own (`AsyncLocalStorage`), so that a failure undoes its
   * writes; a call that cannot write runs without one, and a process whose
   * calls need none never pays for async context on every promise (Node 20
   * tracks it with promise hooks). Only a tool that knows its handler's
   * every write may say no (bridged MCP tools). @default always
   */
  readonly writesInCall?: () => boolean;
  /**
   * @internal Why a call starting now would be refused before it reaches
   * the handler, if it would: a section marks such a tool in the inventory
   * it renders, so that the model can skip the attempt (bridged MCP tools,
   * once the isolation ratchet refuses them). @default never
   */
  readonly refusal?: () => string | undefined;
  /**
   * @internal What `ToolInvoked` shows of a call's params, and of its
   * `ToolResult` (given whole, a `ToolResult` back): bridged MCP tools mask
   * their server's secrets there, an `env` value or a token the server
   * echoed, since events reach subscribers, traces, telemetry and stores.
   * The caller's result stays the server's data. @default shown as they are
   */
  readonly maskInEvents?: ((data: unknown) => unknown) | undefined;
}

const NATIVE: ToolOrigin = Object.freeze({ kind: 'native' });
const ALWAYS = (): boolean => true;
const NEVER = (): undefined => undefined;

/**
 * True for a tool, whatever copy of this package made it: checked by
 * shape (a name, a handler, and the members the library calls), since a
 * second copy of the package has a `Tool` class of its own.
 */
export function isTool(value: unknown): value is Tool {
  const tool = value as Partial<Tool> | null | undefined;
  return (
    typeof tool?.name === 'string' &&
    typeof tool.handler === 'function' &&
    typeof tool.writesInCall === 'function' &&
    typeof tool.withDescription === 'function'
  );
}

/**
 * A callable tool with validated arguments. Run it with `invokeTool`, which
 * adds validation, rollback and the `ToolInvoked` event.
 *
 * @example
 * const add = Tool.create({
 *   name: 'add',
 *   description: 'Adds two numbers',
 *   params: z.object({ a: z.number(), b: z.number() }),
 *   handler: ({ a, b }) => ToolResult.ok(a + b),
 * });
 */
export class Tool<S extends z.ZodType = z.ZodType, R = unknown> {
  readonly name: string;
  readonly description: string;
  readonly handler: ToolHandler<z.output<S>, R>;
  readonly annotations: ToolAnnotations;
  readonly origin: ToolOrigin;
  /** Representative calls, frozen, with trimmed descriptions. */
  readonly examples: readonly ToolExample[];
  /** @internal See {@link ToolOptions.writesInCall}. */
  readonly writesInCall: () => boolean;
  /** @internal See {@link ToolOptions.refusal}. */
  readonly refusal: () => string | undefined;
  /** @internal See {@link ToolOptions.maskInEvents}. */
  readonly maskInEvents: ((data: unknown) => unknown) | undefined;
  #inputSchema: JsonSchema | undefined;
  #params: S | undefined;
  #paramsFactory: (() => S) | undefined;
  /** The params' direct check once looked up; null: they have none. */
  #directCheck: DirectCheck | null | undefined;
  /** The tool this one is a copy of ({@link withDescription}, {@link withHandler}): its params are that tool's. */
  #source: Tool<S, R> | undefined;

  private constructor(
    options: ToolOptions<S, R>,
    description: string,
    examples: readonly ToolExample[],
  ) {
    this.name = options.name;
    this.description = description;
    if (typeof options.params === 'function') this.#paramsFactory = options.params;
    else this.#params = options.params;
    this.handler = options.handler;
    this.annotations = Object.freeze({ ...options.annotations });
    this.origin = options.origin ?? NATIVE;
    this.examples = examples;
    this.writesInCall = options.writesInCall ?? ALWAYS;
    this.refusal = options.refusal ?? NEVER;
    this.maskInEvents = options.maskInEvents;
    this.#inputSchema = options.inputSchema;
    Object.freeze(this);
  }

  /**
   * Validates and creates a tool.
   * @throws PromptValidationError quoting a bad name or description, saying
   *   what was given for a description or handler of the wrong type, or
   *   naming the example and the field that does not match `params`.
   */
  static create<S extends z.ZodType, R>(options: ToolOptions<S, R>): Tool<S, R> {
    const { name } = options;
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
      throw new PromptValidationError(
        `tool name ${JSON.stringify(name)} must match ${TOOL_NAME_PATTERN.source}`,
      );
    }
    if (typeof options.description !== 'string') {
      throw new PromptValidationError(
        `description of tool "${name}" must be a string of 1-${MAX_TOOL_DESCRIPTION_LENGTH} characters, ` +
          `received ${kindOf(options.description)}`,
      );
    }
    const description = options.description.trim();
    const length = characterCount(description);
    if (length === 0 || length > MAX_TOOL_DESCRIPTION_LENGTH) {
      throw new PromptValidationError(
        `description of tool "${name}" must be 1-${MAX_TOOL_DESCRIPTION_LENGTH} characters after trimming, ` +
          `got ${length}: ${JSON.stringify(description)}`,
      );
    }
    if (typeof options.handler !== 'function') {
      throw new PromptValidationError(
        `handler of tool "${name}" must be a function (params, context) => ToolResult, ` +
          `received ${kindOf(options.handler)}`,
      );
    }
    if (!(options.params instanceof z.ZodType) && typeof options.params !== 'function') {
      throw new PromptValidationError(
        `params of tool "${name}" must be a zod schema or a function returning one`,
      );
    }
    if (options.examples === undefined) return new Tool(options, description, NO_EXAMPLES);
    // Examples are checked against the schema now, so a lazy schema is built now.
    const params = typeof options.params === 'function' ? options.params() : options.params;
    if (!(params instanceof z.ZodType)) {
      throw new PromptValidationError(
        `params factory of tool "${name}" did not return a zod schema`,
      );
    }
    const examples = checkToolExamples(name, options.examples, params);
    return new Tool({ ...options, params }, description, examples);
  }

  /**
   * @internal Creates a tool whose name and description are valid by
   * construction (bridged MCP tools: `bridgedToolName`, `bridgedDescription`),
   * without checking them again; `description` must be trimmed already, and
   * `examples`, if any, another tool's (checked and frozen).
   */
  static trusted<S extends z.ZodType, R>(options: ToolOptions<S, R>): Tool<S, R> {
    return new Tool(options, options.description, options.examples ?? NO_EXAMPLES);
  }

  /**
   * @internal The same tool under another description (checked by the
   * caller): every other option, internal ones included, is this tool's.
   */
  withDescription(description: string): Tool<S, R> {
    return this.#with({ description });
  }

  /**
   * @internal The same tool with another handler: every other option,
   * internal ones included, is this tool's (the connection pool's calls).
   */
  withHandler(handler: ToolHandler<z.output<S>, R>): Tool<S, R> {
    return this.#with({ handler });
  }

  /**
   * A copy with some options changed; beside the constructor, so that an
   * option added there is copied. Its params are read through from this
   * tool each time, never kept: {@link forgetParams} reaches the copies too.
   */
  #with(changes: Partial<Pick<ToolOptions<S, R>, 'description' | 'handler'>>): Tool<S, R> {
    const copy = Tool.trusted({
      name: this.name,
      description: this.description,
      params: () => this.params,
      inputSchema: this.inputSchema,
      annotations: this.annotations,
      origin: this.origin,
      handler: this.handler,
      examples: this.examples,
      writesInCall: this.writesInCall,
      refusal: this.refusal,
      maskInEvents: this.maskInEvents,
      ...changes,
    });
    copy.#source = this;
    return copy;
  }

  /** The zod schema that validates the arguments (built on first use when given as a function). */
  get params(): S {
    if (this.#source !== undefined) return this.#source.params;
    if (this.#params === undefined) {
      const schema = (this.#paramsFactory as () => S)();
      if (!(schema instanceof z.ZodType)) {
        throw new PromptValidationError(
          `params factory of tool "${this.name}" did not return a zod schema`,
        );
      }
      this.#params = schema;
    }
    return this.#params;
  }

  /**
   * @internal Drops params built by a factory, so that the next use builds
   * them again: a bridged tool kept across `tools/list_changed` whose
   * in-process server may have edited its schema in place.
   */
  forgetParams(): void {
    if (this.#paramsFactory === undefined) return;
    this.#params = undefined;
    this.#directCheck = undefined;
  }

  /**
   * @internal The direct check of {@link params} (`direct-check.ts`), looked
   * up once: a call then reads one field instead of a symbol on the zod
   * schema, whose many members make it a slow object to search.
   */
  get directCheck(): DirectCheck | undefined {
    if (this.#source !== undefined) return this.#source.directCheck;
    this.#directCheck ??= directCheckOf(this.params) ?? null;
    return this.#directCheck ?? undefined;
  }

  /** The JSON Schema of the arguments, as given to an LLM API. */
  get inputSchema(): JsonSchema {
    // Computed on first use: most native tools are never listed.
    this.#inputSchema ??= Object.freeze(
      z.toJSONSchema(this.params, { io: 'input', unrepresentable: 'any' }) as JsonSchema,
    );
    return this.#inputSchema;
  }
}

/** What a value of the wrong type is, for a message: its kind, and a short primitive's value. */
function kindOf(value: unknown): string {
  switch (typeof value) {
    case 'undefined':
      return 'nothing';
    case 'number':
    case 'boolean':
    case 'bigint':
      return `a ${typeof value} (${describeSent(value)})`;
    default:
      return describeSent(value); // null, an object, an array, a function, a symbol
  }
}
