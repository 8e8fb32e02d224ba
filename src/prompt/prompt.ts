import { z } from 'zod';
import { trimBodyEdges } from './template-text.js';
import { boundedQuote, messageOf, PromptRenderError } from '../core/errors.js';
import { isObserved } from '../runtime/event-bus.js';
import { PromptRendered } from '../runtime/events.js';
import type { Session } from '../runtime/session.js';
import type { Tool } from '../tools/tool.js';
import { OverridesApplier, type OverrideOutcome } from './overrides/apply.js';
import { DEFAULT_OVERRIDES_TAG, type PromptOverrides } from './overrides/prompt-overrides.js';
import type { OverridesStoreCallOptions, PromptOverridesStore } from './overrides/store.js';
import type { PromptTemplate } from './prompt-template.js';
import { describeValue } from './describe-value.js';
import { RenderedPrompt } from './rendered-prompt.js';
import { sameItems } from './same-items.js';
import type { ParamsSchema, Section, SectionRenderContext } from './section.js';
import { PromptDisclosure } from './disclosure/disclosure-tools.js';
import type { DisclosureWalk, ReadableSection } from './disclosure/disclosure-walk.js';
import { withToolExamples } from './tool-examples-block.js';
import { type ListPolicies, resolveToolPolicies } from './tool-policies.js';

/**
 * What a render collects: headings and bodies alternating, and tool lists
 * with their section paths and policies; with overrides, what became of each.
 */
interface RenderParts {
  readonly parts: string[];
  readonly toolLists: (readonly Tool[])[];
  readonly toolPaths: string[];
  readonly toolPolicies: ListPolicies[];
  readonly outcomes: OverrideOutcome[] | undefined;
}

/** How errors name the owner of the disclosure tools. */
const DISCLOSURE_TOOLS_PATH = '(progressive disclosure)';

/** Options of {@link Prompt.render}. */
export interface RenderOptions {
  /** Passed to sections and `enabled` predicates; `PromptRendered` is published on it. */
  readonly session?: Session;
}

/** Options of the {@link Prompt} constructor. */
export interface PromptOptions {
  /**
   * Overrides to apply (read from a store: see {@link Prompt.withOverrides}),
   * checked against the template when the prompt is created.
   * @default none: the template's own text
   */
  readonly overrides?: PromptOverrides;
}

/** Options of {@link Prompt.withOverrides}. */
export interface WithOverridesOptions extends OverridesStoreCallOptions {
  readonly store: PromptOverridesStore;
  /** @default 'latest' */
  readonly tag?: string;
}

/**
 * A template with bound params, ready to render.
 *
 * @example
 * const text = new Prompt(template).bind(Params, { user: 'Ada' }).render().text;
 */
export class Prompt<O = unknown> {
  readonly template: PromptTemplate<O>;
  readonly #bound = new Map<ParamsSchema, unknown>();
  readonly #disclosure: PromptDisclosure;
  /** Set when the prompt was created with overrides. */
  readonly #overrides: OverridesApplier | undefined;
  /** The last render's parts and text, and its tool lists and tools: reused when unchanged. */
  #last: { readonly parts: readonly string[]; readonly text: string } | undefined;
  #lastTools:
    | {
        readonly lists: readonly (readonly Tool[])[];
        readonly paths: readonly string[];
        readonly tools: readonly Tool[];
      }
    | undefined;

  /**
   * @throws PromptOverridesError for overrides of another prompt, or whose
   *   replacement text breaks the rules of what it replaces.
   */
  constructor(template: PromptTemplate<O>, options: PromptOptions = {}) {
    this.template = template;
    this.#disclosure = new PromptDisclosure(template, (entry, session, walk) =>
      this.#renderRead(entry, session, walk),
    );
    this.#overrides =
      options.overrides === undefined
        ? undefined
        : new OverridesApplier(template, options.overrides);
  }

  /**
   * Reads the template's overrides under `tag` from `store` and creates the
   * prompt with them (without, when the store has none). Reading is the
   * only asynchronous step: rendering stays synchronous and never touches
   * the store, and a prompt keeps the overrides it was created with.
   *
   * @throws PromptOverridesError for stored overrides that do not parse or do not fit.
   */
  static async withOverrides<O>(
    template: PromptTemplate<O>,
    options: WithOverridesOptions,
  ): Promise<Prompt<O>> {
    const overrides = await options.store.resolve(
      { ns: template.ns, key: template.key, tag: options.tag ?? DEFAULT_OVERRIDES_TAG },
      options.signal === undefined ? {} : { signal: options.signal },
    );
    return new Prompt(template, overrides === undefined ? {} : { overrides });
  }

  /** The overrides the prompt was created with, if any. */
  get overrides(): PromptOverrides | undefined {
    return this.#overrides?.overrides;
  }

  /**
   * Binds a value for every section whose params type is `schema`; binding
   * the same schema again replaces the value.
   *
   * @throws TypeError when `schema` is not a zod object schema.
   * @throws PromptRenderError when `value` does not parse.
   */
  bind<S extends ParamsSchema>(schema: S, value: z.input<S>): this {
    if (!((schema as unknown) instanceof z.ZodObject)) {
      throw new TypeError(
        `bind(schema, value): schema must be a zod object schema (a section's params), received ${describeValue(schema)}`,
      );
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new PromptRenderError(
        `bound params do not parse: ${summarizeIssues(parsed.error.issues)}`,
        {
          cause: parsed.error,
        },
      );
    }
    this.#bound.set(schema, parsed.data);
    return this;
  }

  /**
   * Renders enabled sections depth first, numbered, each as heading, blank
   * line, body, joined by blank lines. A summarized section shows its
   * summary alone, and while any is, `open_sections` / `read_section` are
   * offered (see docs/prompts.md).
   *
   * @throws PromptRenderError for a missing value, params that do not parse,
   *   or an `enabled` predicate that throws (naming the section's path).
   * @throws SessionStoreError `session-not-loaded` when sections may be
   *   summarized and the session's store is not loaded yet.
   */
  render(options: RenderOptions = {}): RenderedPrompt<O> {
    const { session } = options;
    const walk = this.#disclosure.begin(session);
    const out = newRenderParts(this.#overrides?.begin());
    this.#visit(this.template.sections, 0, '', '', out, walk, session);
    const disclosureTools = walk === undefined ? undefined : this.#disclosure.finish(walk, session);
    if (disclosureTools !== undefined) {
      out.toolLists.push(disclosureTools);
      out.toolPaths.push(DISCLOSURE_TOOLS_PATH);
      out.toolPolicies.push(null); // not even the template's: they only read the prompt
    }

    const tools = this.#tools(out.toolLists, out.toolPaths);
    const rendered = new RenderedPrompt<O>(
      this.#text(out.parts),
      tools,
      this.template.output,
      resolveToolPolicies(tools, out.toolLists, out.toolPolicies, this.template.policies),
    );
    if (session !== undefined && out.outcomes !== undefined) {
      this.#overrides?.publish(out.outcomes, session);
    }
    if (session !== undefined && isObserved(session, PromptRendered)) {
      session.dispatch(
        new PromptRendered({
          ns: this.template.ns,
          key: this.template.key,
          ...(this.template.name === undefined ? {} : { name: this.template.name }),
          text: rendered.text,
          toolNames: Object.freeze(rendered.tools.map((t) => t.name)),
          sessionId: session.sessionId,
          createdAt: new Date(),
        }),
      );
    }
    return rendered;
  }

  /** Renders enabled sections depth first: in full, or summarized by the disclosure walk. */
  #visit(
    sections: readonly Section[],
    depth: number,
    prefix: string,
    parentPath: string,
    out: RenderParts,
    walk: DisclosureWalk | undefined,
    session: Session | undefined,
  ): void {
    let index = 0;
    for (const section of sections) {
      const path = parentPath === '' ? section.key : `${parentPath}.${section.key}`;
      const params = this.#resolveParams(section, path);
      if (!isEnabled(section, params, path, session)) continue;
      index += 1;
      const number = prefix === '' ? String(index) : `${prefix}.${index}`;
      const context: SectionRenderContext = {
        depth,
        number,
        path,
        ...(session === undefined ? {} : { session }),
      };
      const summary = walk?.summaryOf(
        section,
        params,
        this.#overrides === undefined
          ? context
          : this.#overrides.contextFor(section, path, context),
      );
      if (summary === undefined) {
        this.#visitFull(section, params, context, out, walk);
        continue;
      }
      out.parts.push(headingOf(section, context), summary.body);
      this.#offer(section, summary.tools, path, out);
    }
  }

  /** One section in full: heading, body, its tools' examples, its tools, then its children. */
  #visitFull(
    section: Section,
    params: unknown,
    context: SectionRenderContext,
    out: RenderParts,
    walk: DisclosureWalk | undefined,
  ): void {
    const { depth, number, path, session } = context;
    const overrides = this.#overrides;
    // The body first: a section that cannot render says so before its tools are asked for.
    const rendered =
      overrides === undefined || out.outcomes === undefined
        ? section.renderBody(params as never, context)
        : overrides.renderBody(section, path, params, context, out.outcomes);
    const body = trimBodyEdges(rendered);
    const tools = this.#offer(section, section.tools(), path, out);
    out.parts.push(headingOf(section, context), withToolExamples(body, tools));
    this.#visit(section.children, depth + 1, number, path, out, walk, session);
  }

  /** Adds a section's tools (with override descriptions) to what the render offers; returns them. */
  #offer(section: Section, own: readonly Tool[], path: string, out: RenderParts): readonly Tool[] {
    const overrides = this.#overrides;
    const tools =
      overrides === undefined || out.outcomes === undefined
        ? own
        : overrides.tools(section, path, own, out.outcomes);
    if (tools.length > 0) {
      out.toolLists.push(tools);
      out.toolPaths.push(path);
      out.toolPolicies.push(section.policies());
    }
    return tools;
  }

  /** What `read_section` returns: a summarized section in full, its children as they would render. */
  #renderRead(entry: ReadableSection, session: Session, walk: DisclosureWalk): string {
    // Overrides apply as in a render; what became of them is published by renders only.
    const out = newRenderParts(this.#overrides?.begin());
    const context = { depth: entry.depth, number: entry.number, path: entry.path, session };
    const params = this.#resolveParams(entry.section, entry.path);
    this.#visitFull(entry.section, params, context, out, walk);
    return joinParts(out.parts);
  }

  /**
   * The text of the headings and bodies, joined; the previous text when
   * they are the same strings as last time (a section that caches its body
   * returns the very same string, so comparing costs nothing, and a long
   * prompt is not copied again).
   */
  #text(parts: readonly string[]): string {
    const last = this.#last;
    if (last !== undefined && sameItems(parts, last.parts)) return last.text;
    const text = joinParts(parts);
    this.#last = { parts, text };
    return text;
  }

  /**
   * Every offered tool, checked for names offered twice; the previous frozen
   * list when the sections gave the same tool lists from the same paths.
   * @throws PromptRenderError for a name offered by two sections.
   */
  #tools(lists: readonly (readonly Tool[])[], paths: readonly string[]): readonly Tool[] {
    const last = this.#lastTools;
    // Only frozen lists can be trusted to hold the same tools as last time.
    if (
      last !== undefined &&
      sameItems(lists, last.lists) &&
      sameItems(paths, last.paths) &&
      lists.every((list) => Object.isFrozen(list))
    ) {
      return last.tools;
    }
    const tools: Tool[] = [];
    const owners = new Map<string, string>();
    lists.forEach((list, index) => {
      const path = paths[index]!;
      for (const tool of list) {
        const owner = owners.get(tool.name);
        if (owner !== undefined) {
          throw new PromptRenderError(
            `tool name "${tool.name}" is offered twice (sections "${owner}" and "${path}")`,
          );
        }
        owners.set(tool.name, path);
        tools.push(tool);
      }
    });
    const frozen = Object.freeze(tools);
    this.#lastTools = { lists, paths, tools: frozen };
    return frozen;
  }

  #resolveParams(section: Section, path: string): unknown {
    const schema = section.params;
    if (schema === undefined) return undefined;
    if (this.#bound.has(schema)) return this.#bound.get(schema);
    const failures: string[] = [];
    let cause: unknown;
    if (section.defaultParams !== undefined) {
      const parsed = schema.safeParse(section.defaultParams);
      if (parsed.success) return parsed.data;
      failures.push(`defaultParams do not parse: ${summarizeIssues(parsed.error.issues)}`);
      cause = parsed.error;
    }
    const parsed = schema.safeParse({});
    if (parsed.success) return parsed.data;
    failures.push(`the schema's defaults do not parse: ${summarizeIssues(parsed.error.issues)}`);
    throw new PromptRenderError(`section "${path}": no params bound; ${failures.join('; ')}`, {
      cause: cause ?? parsed.error,
    });
  }
}

/**
 * Asks a section's `enabled` predicate.
 * @throws PromptRenderError naming the section's path when the predicate throws, with the error as cause.
 */
function isEnabled(
  section: Section,
  params: unknown,
  path: string,
  session: Session | undefined,
): boolean {
  try {
    return section.isEnabled(params, session === undefined ? {} : { session });
  } catch (error) {
    throw new PromptRenderError(
      `section "${path}": its enabled predicate threw: ${boundedQuote(messageOf(error))}`,
      { cause: error },
    );
  }
}

function newRenderParts(outcomes: OverrideOutcome[] | undefined): RenderParts {
  return { parts: [], toolLists: [], toolPaths: [], toolPolicies: [], outcomes };
}

/** Headings and bodies, alternating, as text: heading, blank line, body; blocks joined by a blank line. */
function joinParts(parts: readonly string[]): string {
  const blocks: string[] = [];
  for (let index = 0; index < parts.length; index += 2) {
    const heading = parts[index]!;
    const body = parts[index + 1]!;
    blocks.push(body.length === 0 ? heading : `${heading}\n\n${body}`);
  }
  return blocks.join('\n\n');
}

function headingOf(section: Section, context: SectionRenderContext): string {
  return `${'#'.repeat(context.depth + 2)} ${context.number}. ${section.title} (${context.path})`;
}

function summarizeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const field = issue.path.length === 0 ? '(params)' : issue.path.map(String).join('.');
      return `${field}: ${issue.message}`;
    })
    .join(', ');
}
