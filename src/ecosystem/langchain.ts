/**
 * LangChain JS tools (`@langchain/core` 1.x): one `StructuredTool` per tool
 * of a rendered prompt, whose `invoke` runs `invokeTool`, so a LangChain
 * agent gets the section's validation, `ToolInvoked` events, rollback and
 * isolation ratchet. The model is given the tool's JSON Schema without its
 * regular expressions (`pattern`, `patternProperties`): LangChain checks
 * arguments against the schema it holds on JavaScript's backtracking
 * engine, where a server's pattern could stall the process, before our
 * own check (which runs them in linear time) has the last word.
 *
 * Imported only through the `mcp-sections/langchain` entry, so the main
 * entry never needs `@langchain/core`.
 */
import type { CallbackManagerForToolRun } from '@langchain/core/callbacks/manager';
import { ToolMessage } from '@langchain/core/messages';
import {
  StructuredTool,
  ToolInputParsingException,
  type StructuredToolCallInput,
  type ToolReturnType,
  type ToolRunnableConfig,
} from '@langchain/core/tools';
import type { JSONSchema } from '@langchain/core/utils/json_schema';
import { messageOf } from '../core/errors.js';
import { boundedJsonText, decodePointer, memberOf } from '../core/json.js';
import { SCHEMA_TEXT_LIMITS } from '../mcp/schema/json.js';
import type { Session } from '../runtime/session.js';
import { invokeTool } from '../tools/invoke-tool.js';
import type { Approval } from '../tools/policy/approval.js';
import type { ToolPolicy } from '../tools/policy/tool-policy.js';
import type { Tool } from '../tools/tool.js';
import type { ToolResult } from '../tools/tool-result.js';
import { anySignal } from './any-signal.js';
import {
  policiesOf,
  policyOptions,
  resultText,
  toolsOf,
  type ToolSource,
  resultParts,
} from './tool-source.js';

/** Options of {@link toLangChainTools}. */
export interface ToLangChainToolsOptions {
  /** The session calls belong to (validation, rollback, `ToolInvoked`). */
  readonly session: Session;
  /** Cancels every call, together with the `signal` of LangChain's run config. */
  readonly signal?: AbortSignal;
  /** Decides the calls a policy of the prompt asks about; without it an `ask` denies. @default none */
  readonly approval?: Approval;
}

/** What a tool call's arguments are: a JSON object. */
type Arguments = Record<string, unknown>;

/**
 * A LangChain `StructuredTool` running one of ours. Invoked with a
 * `ToolCall` (as agents do) it returns a `ToolMessage`: `status: 'error'` for
 * a failed call, the result's value as `artifact`, and image blocks beside
 * the text when an MCP tool returned images. Invoked with plain arguments it
 * returns the text the model would read.
 */
export class SectionStructuredTool extends StructuredTool<
  JSONSchema,
  Arguments,
  Arguments,
  ToolMessage | string
> {
  static override lc_name(): string {
    return 'SectionStructuredTool';
  }

  readonly name: string;
  readonly description: string;
  /** A copy of the tool's JSON Schema without `pattern`/`patternProperties`: what `bindTools` sends the model. */
  readonly schema: JSONSchema;
  readonly #tool: Tool;
  readonly #options: ToLangChainToolsOptions;
  readonly #policies: readonly ToolPolicy[];

  /** `policies`: what calls of `tool` obey (a rendered prompt's `policiesFor(tool.name)`). */
  constructor(tool: Tool, options: ToLangChainToolsOptions, policies: readonly ToolPolicy[] = []) {
    super();
    this.#tool = tool;
    this.#options = options;
    this.#policies = policies;
    this.name = tool.name;
    this.description = tool.description;
    // A copy: LangChain's validator (@cfworker/json-schema) marks the schema
    // objects it is given, and a native tool's schema is frozen.
    this.schema = withoutDanglingReferences(
      withoutPatterns(boundedCopy(tool), false),
    ) as JSONSchema;
  }

  /**
   * LangChain checks arguments against the JSON Schema before `_call` and
   * throws `ToolInputParsingException`; the section's validator has the last
   * word instead, so that a refusal is an error result the model can read
   * and the session sees the call (`ToolInvoked`).
   */
  override async call<
    TArg extends StructuredToolCallInput<JSONSchema, Arguments>,
    TConfig extends ToolRunnableConfig | undefined,
  >(
    arg: TArg,
    configArg?: TConfig,
    tags?: string[],
  ): Promise<ToolReturnType<TArg, TConfig, ToolMessage | string>> {
    try {
      return await super.call(arg, configArg, tags);
    } catch (error) {
      if (!(error instanceof ToolInputParsingException)) throw error;
      const id = isToolCall(arg) ? arg.id : configArg?.toolCall?.id;
      const args = isToolCall(arg) ? arg.args : arg;
      const output = await this.#run(args, id, configArg?.signal);
      return output as ToolReturnType<TArg, TConfig, ToolMessage | string>;
    }
  }

  protected override _call(
    args: Arguments,
    _runManager?: CallbackManagerForToolRun,
    config?: ToolRunnableConfig,
  ): Promise<ToolMessage | string> {
    return this.#run(args, config?.toolCall?.id, config?.signal);
  }

  async #run(
    args: unknown,
    id: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ToolMessage | string> {
    const combined = anySignal([this.#options.signal, signal]);
    let result: ToolResult;
    try {
      result = await invokeTool(this.#tool, args, {
        session: this.#options.session,
        ...(combined.signal === undefined ? {} : { signal: combined.signal }),
        ...policyOptions(this.#policies, this.#options.approval),
      });
    } finally {
      combined.dispose();
    }
    if (id === undefined) return resultText(this.#tool, result);
    return new ToolMessage({
      tool_call_id: id,
      name: this.name,
      status: result.success ? 'success' : 'error',
      content: resultParts(
        this.#tool,
        result,
        (text) => ({ type: 'text' as const, text }),
        ({ mimeType, data }) => ({ type: 'image' as const, mimeType, data }),
      ),
      artifact: result.value,
    });
  }
}

/**
 * The tools of a rendered prompt as LangChain `StructuredTool`s, in order;
 * their calls obey the prompt's policies.
 *
 * @example
 * import { toLangChainTools } from 'mcp-sections/langchain';
 * const tools = toLangChainTools(rendered, { session });
 * const model = new ChatOpenAI({ model: 'gpt-4.1' }).bindTools(tools);
 * const agent = createAgent({ model: 'openai:gpt-4.1', tools });
 */
export function toLangChainTools(
  source: ToolSource,
  options: ToLangChainToolsOptions,
): SectionStructuredTool[] {
  return toolsOf(source).map(
    (tool) => new SectionStructuredTool(tool, options, policiesOf(source, tool)),
  );
}

/**
 * The tool's input schema as plain JSON within the schema bounds, read
 * once: a bridged tool's schema is its server's object, and an in-process
 * server's getter may give, on this read, a cycle, a depth or a sparse
 * array of billions that the check at connect never saw.
 * @throws TypeError naming the tool and where its schema passes a bound.
 */
function boundedCopy(tool: Tool): unknown {
  try {
    return JSON.parse(boundedJsonText(tool.inputSchema, SCHEMA_TEXT_LIMITS));
  } catch (error) {
    throw new TypeError(
      `the input schema of tool "${tool.name}" cannot be given to LangChain: ${messageOf(error)}`,
    );
  }
}

/** Keywords whose members are named by property names (or definition names), not keywords. */
const NAMED = new Set(['properties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);

/** Keywords whose values are data, copied as they are (a `pattern` member there is a value). */
const DATA = new Set(['const', 'enum', 'default', 'examples']);

/**
 * Keywords under which taking a pattern out would make the schema stricter,
 * not looser: `not` (`not: {pattern}` would become `not: {}`, which nothing
 * passes) and `if` (it decides which of `then` and `else` applies).
 */
const NEGATED = ['not', 'if'];

/**
 * Keywords that count or exclude what a pattern matched, dropped with it:
 * beside `patternProperties`, the properties no pattern named
 * (`additionalProperties`: `{x_a}` would become an extra property); beside
 * anything that holds a pattern or a reference, what no subschema
 * evaluated (`unevaluatedProperties`, `unevaluatedItems`); beside a
 * `contains` that holds a pattern, the most items that may match it (more
 * match once the pattern is gone).
 */
function countsWhatPatternsMatched(record: Record<string, unknown>): string[] {
  const dropped: string[] = [];
  if ('patternProperties' in record) dropped.push('additionalProperties');
  // What subschemas evaluated (through `allOf`, a `$ref`, `if`, `prefixItems`…) a pattern decided.
  if (holdsPatternOrReference(record)) dropped.push('unevaluatedProperties', 'unevaluatedItems');
  if ('contains' in record && holdsPatternOrReference(record['contains'])) {
    dropped.push('maxContains');
  }
  return dropped;
}

/**
 * A copy of `value` (a schema, when `names` is false) without any `pattern`
 * or `patternProperties` member: LangChain's validator would compile them
 * with `new RegExp` and run them on the model's arguments, where `^(a+)+$`
 * blocks the event loop; `invokeTool` checks them in linear time instead.
 * They are dropped at every depth (a `$ref` may lead anywhere), except as
 * the name of a property and inside data (`const`, `enum`, `default`,
 * `examples`). A `not` or an `if` (with its `then` and `else`) that holds
 * a pattern or a reference is dropped whole, as are the keywords that
 * count what a pattern matched ({@link countsWhatPatternsMatched}), and a
 * `oneOf` whose branches hold one becomes an `anyOf`: the copy accepts
 * more than the schema, never less, wherever a pattern was taken out, so
 * the model is not shown a constraint the real one does not have (the
 * section's validator has the last word on every call).
 */
function withoutPatterns(value: unknown, names: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutPatterns(item, false));
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  const dropped = new Set<string>();
  if (!names) {
    dropped.add('pattern').add('patternProperties');
    for (const keyword of NEGATED) {
      if (keyword in record && holdsPatternOrReference(record[keyword])) dropped.add(keyword);
    }
    if (dropped.has('if')) dropped.add('then').add('else');
    for (const keyword of countsWhatPatternsMatched(record)) dropped.add(keyword);
  }
  // Branches that lose their patterns may match together: "one of" becomes
  // "any of" (or goes, where the schema has an `anyOf` of its own already).
  const oneOfLoosened = !names && 'oneOf' in record && holdsPatternOrReference(record['oneOf']);
  if (oneOfLoosened && 'anyOf' in record) dropped.add('oneOf');
  return Object.fromEntries(
    Object.entries(record)
      .filter(([key]) => !dropped.has(key))
      .map(([key, member]) => [
        oneOfLoosened && key === 'oneOf' ? 'anyOf' : key,
        !names && DATA.has(key) ? member : withoutPatterns(member, !names && NAMED.has(key)),
      ]),
  );
}

/**
 * `root` (a copy made by {@link withoutPatterns}, edited in place) without
 * the local `$ref`s that lead nowhere in it: a place the copy renamed or
 * dropped (`oneOf/1`, `patternProperties/…`, `then`) would make
 * LangChain's validator throw on every call (no parsing error the tool
 * could fall back from), and the model be shown a dangling reference. An
 * object whose reference is taken out accepts more, as every change of
 * the copy does.
 */
function withoutDanglingReferences(root: unknown): unknown {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    const ref = record['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#/') && resolves(root, ref) === undefined) {
      delete record['$ref'];
    }
    for (const [key, member] of Object.entries(record)) if (!DATA.has(key)) visit(member);
  };
  visit(root);
  return root;
}

/** What a `#/a/b` reference names in `root`, or undefined. */
function resolves(root: unknown, ref: string): unknown {
  let node: unknown = root;
  for (const segment of decodePointer(ref)) {
    node = memberOf(node, segment);
    if (node === undefined) return undefined;
  }
  return node;
}

/** Whether a schema holds, at any depth outside data, a pattern or a reference. */
function holdsPatternOrReference(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  // Asked again at every level of the copy: each object is looked into once.
  let holds = held.get(value);
  if (holds === undefined) {
    holds = Array.isArray(value)
      ? value.some(holdsPatternOrReference)
      : Object.entries(value as Record<string, unknown>).some(
          ([key, member]) =>
            key === 'pattern' ||
            key === 'patternProperties' ||
            key === '$ref' ||
            key === '$dynamicRef' ||
            key === '$recursiveRef' ||
            (!DATA.has(key) && holdsPatternOrReference(member)),
        );
    held.set(value, holds);
  }
  return holds;
}

/** What {@link holdsPatternOrReference} found, by object of a schema's private copy (never edited). */
const held = new WeakMap<object, boolean>();

/** A LangChain `ToolCall` (`{ name, args, id?, type?: 'tool_call' }`), as `invoke` may be given. */
function isToolCall(value: unknown): value is { readonly id?: string; readonly args: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    'args' in value &&
    'name' in value &&
    (!('type' in value) || value.type === 'tool_call')
  );
}
