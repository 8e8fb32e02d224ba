/**
 * How a `Prompt` created with overrides renders: which section bodies and
 * tool descriptions they replace, and the events that say so. Decided once
 * per section (when the prompt is created) and once per tool object (when
 * it is first offered: MCP tools arrive after connecting), so a render
 * repeats no hashing.
 */
import { PromptOverridesError, PromptValidationError } from '../../core/errors.js';
import { isObserved } from '../../runtime/event-bus.js';
import type { Session } from '../../runtime/session.js';
import { characterCount } from '../../core/well-formed.js';
import type { Tool } from '../../tools/tool.js';
import { MAX_TOOL_DESCRIPTION_LENGTH } from '../../tools/tool.js';
import type { PromptTemplate } from '../prompt-template.js';
import type { Section, SectionBodyRenderer, SectionRenderContext } from '../section.js';
import { contentHash } from './content-hash.js';
import { walkSections } from './descriptor.js';
import {
  PromptOverrideApplied,
  PromptOverrideRefused,
  PromptOverrideSkipped,
  type PromptOverrideSkipReason,
  type PromptOverrideTarget,
} from './events.js';
import { parsePromptOverrides, type PromptOverrides } from './prompt-overrides.js';

/** What became of one override, ready to be published. */
export type OverrideOutcome = {
  readonly target: PromptOverrideTarget;
  readonly path: string;
  readonly toolName?: string;
} & (
  | { readonly kind: 'applied'; readonly replacedHash: string }
  | { readonly kind: 'refused'; readonly reason: string }
  | {
      readonly kind: 'skipped';
      readonly reason: PromptOverrideSkipReason;
      readonly expectedHash: string;
      readonly actualHash?: string;
    }
);

/** Where an override applies: its target, path and (for a tool) the tool's name. */
type OverrideTargetRef = Pick<OverrideOutcome, 'target' | 'path' | 'toolName'>;

/** The outcome of an override whose text no longer matches what it replaced. */
function staleOutcome(
  where: OverrideTargetRef,
  expectedHash: string,
  actualHash: string,
): OverrideOutcome {
  return { ...where, kind: 'skipped', reason: 'stale', expectedHash, actualHash };
}

interface SectionDecision {
  readonly outcome: OverrideOutcome;
  /** What renders the body instead of the section, when the override applies. */
  readonly render?: SectionBodyRenderer;
}

interface ToolDecision {
  readonly outcome: OverrideOutcome;
  /** The tool to offer: the same tool, or one with the override's description. */
  readonly tool: Tool;
}

/**
 * Characters an override's text may not hold: controls other than a line
 * break and a tab (C0, DEL, C1: ESC starts terminal sequences), bidi
 * controls, format characters and other default-ignorable code points
 * (Unicode tag characters, zero-width characters, variation selectors).
 * A reviewer reading the overrides file does not see them; the model does,
 * so they could carry instructions no one reviewed. This refuses also the
 * zero-width joiner and variation selectors some emoji are written with.
 */
const INVISIBLE = /(?![\n\t])[\p{Cc}\p{Cf}\p{Bidi_Control}\p{Default_Ignorable_Code_Point}]/u;

/** Invisible or line-breaking characters, which a one-line MCP description may not hold. */
const NOT_ONE_LINE = /[\p{Cc}\p{Cf}\p{Bidi_Control}\p{Default_Ignorable_Code_Point}\u2028\u2029]/u;

/** @internal The overrides of one `Prompt`, decided against its template. */
export class OverridesApplier {
  readonly overrides: PromptOverrides;
  readonly #sections = new Map<string, SectionDecision>();
  /** Overrides of paths the template does not have, reported at every render. */
  readonly #unknown: readonly OverrideOutcome[];
  readonly #hasToolOverrides: boolean;
  readonly #tools = new WeakMap<Tool, ToolDecision | null>();
  readonly #lists = new WeakMap<
    readonly Tool[],
    { readonly tools: readonly Tool[]; readonly outcomes: readonly OverrideOutcome[] }
  >();
  readonly #describers = new Map<string, (tool: Tool) => string>();

  /**
   * @throws PromptOverridesError for overrides of another prompt, a section
   *   path two sections share, or a replacement that breaks the rules of
   *   what it replaces (a placeholder that names no params field, a native
   *   tool description over 200 characters) or holds a control or invisible
   *   character (see {@link INVISIBLE}).
   */
  constructor(template: PromptTemplate<unknown>, overrides: PromptOverrides) {
    const checked = parsePromptOverrides(overrides);
    if (checked.ns !== template.ns || checked.key !== template.key) {
      throw new PromptOverridesError(
        `overrides of prompt "${checked.ns}/${checked.key}" cannot apply to prompt "${template.ns}/${template.key}"`,
      );
    }
    this.overrides = checked;
    const byPath = new Map<string, Section>();
    const shared = new Set<string>();
    walkSections(template.sections, (section, path) => {
      if (byPath.has(path)) shared.add(path);
      byPath.set(path, section);
    });
    const unknown: OverrideOutcome[] = [];
    for (const [path, entry] of Object.entries(checked.sections)) {
      const section = byPath.get(path);
      if (section === undefined) {
        unknown.push({
          kind: 'skipped',
          reason: 'unknown-section',
          target: 'section',
          path,
          expectedHash: entry.expectedHash,
        });
        continue;
      }
      if (shared.has(path)) {
        throw this.#error(
          `two sections have the path "${path}"; an override cannot tell them apart`,
        );
      }
      this.#sections.set(path, this.#decideSection(section, path, entry));
    }
    this.#unknown = Object.freeze(unknown);
    this.#hasToolOverrides = Object.keys(checked.tools).length > 0;
    // Tools known now are decided now, so a bad description fails here, not mid-conversation.
    if (this.#hasToolOverrides) {
      walkSections(template.sections, (section, path) => {
        for (const tool of section.toolsAtCreation()) this.#decideTool(tool, section, path);
      });
    }
  }

  /** Outcomes every render reports, whatever it renders: overrides of paths the template lacks. */
  begin(): OverrideOutcome[] {
    return [...this.#unknown];
  }

  /**
   * The render context with the descriptions this render gives the
   * section's tools (`toolDescription`), when overrides change any: for a
   * section that lists its tools in its body, in full or summarized.
   */
  contextFor(section: Section, path: string, context: SectionRenderContext): SectionRenderContext {
    const describer = this.#describer(section, path);
    return describer === undefined ? context : { ...context, toolDescription: describer };
  }

  /** The section's body, from the override when one applies; records the outcome. */
  renderBody(
    section: Section,
    path: string,
    params: unknown,
    context: SectionRenderContext,
    outcomes: OverrideOutcome[],
  ): string {
    const full = this.contextFor(section, path, context);
    const decision = this.#sections.get(path);
    if (decision === undefined) return section.renderBody(params as never, full);
    outcomes.push(decision.outcome);
    return decision.render === undefined
      ? section.renderBody(params as never, full)
      : decision.render(params, full);
  }

  /**
   * The section's tools as offered: those with an applicable override
   * replaced by a tool with its description (same name, schema, handler
   * and origin); records the outcomes. The same frozen list for the same
   * frozen list, so the prompt's tool cache keeps working.
   */
  tools(
    section: Section,
    path: string,
    tools: readonly Tool[],
    outcomes: OverrideOutcome[],
  ): readonly Tool[] {
    if (!this.#hasToolOverrides || tools.length === 0) return tools;
    let offered = this.#lists.get(tools);
    if (offered === undefined) {
      const found: OverrideOutcome[] = [];
      let changed = false;
      const list = tools.map((tool) => {
        const decision = this.#decideTool(tool, section, path);
        if (decision === null) return tool;
        found.push(decision.outcome);
        changed ||= decision.tool !== tool;
        return decision.tool;
      });
      offered = { tools: changed ? Object.freeze(list) : tools, outcomes: Object.freeze(found) };
      if (Object.isFrozen(tools)) this.#lists.set(tools, offered);
    }
    outcomes.push(...offered.outcomes);
    return offered.tools;
  }

  /** Publishes one event per outcome, each only when something listens for it. */
  publish(outcomes: readonly OverrideOutcome[], session: Session): void {
    const { ns, key, tag } = this.overrides;
    for (const outcome of outcomes) {
      const base = {
        ns,
        key,
        tag,
        target: outcome.target,
        path: outcome.path,
        ...(outcome.toolName === undefined ? {} : { toolName: outcome.toolName }),
        sessionId: session.sessionId,
      };
      if (outcome.kind === 'applied') {
        if (!isObserved(session, PromptOverrideApplied)) continue;
        session.dispatch(
          new PromptOverrideApplied({
            ...base,
            replacedHash: outcome.replacedHash,
            createdAt: new Date(),
          }),
        );
      } else if (outcome.kind === 'refused') {
        if (!isObserved(session, PromptOverrideRefused)) continue;
        session.dispatch(
          new PromptOverrideRefused({ ...base, reason: outcome.reason, createdAt: new Date() }),
        );
      } else {
        if (!isObserved(session, PromptOverrideSkipped)) continue;
        session.dispatch(
          new PromptOverrideSkipped({
            ...base,
            reason: outcome.reason,
            expectedHash: outcome.expectedHash,
            ...(outcome.actualHash === undefined ? {} : { actualHash: outcome.actualHash }),
            createdAt: new Date(),
          }),
        );
      }
    }
  }

  #decideSection(
    section: Section,
    path: string,
    entry: PromptOverrides['sections'][string],
  ): SectionDecision {
    const where = { target: 'section', path } as const;
    if (!section.acceptsOverrides) {
      return {
        outcome: {
          ...where,
          kind: 'refused',
          reason: `section "${path}" does not accept overrides`,
        },
      };
    }
    const template = section.bodyTemplate();
    if (template === undefined) {
      return {
        outcome: { ...where, kind: 'refused', reason: `section "${path}" has no body template` },
      };
    }
    const actualHash = contentHash(template);
    if (actualHash !== entry.expectedHash) {
      return { outcome: staleOutcome(where, entry.expectedHash, actualHash) };
    }
    const bad = INVISIBLE.exec(entry.body);
    if (bad !== null) {
      throw this.#error(
        `section "${path}": body must hold no control or invisible characters ` +
          `(line breaks and tabs only); found ${codePoint(bad)}`,
      );
    }
    let render: SectionBodyRenderer;
    try {
      render = section.compileBody(entry.body);
    } catch (error) {
      if (!(error instanceof PromptValidationError)) throw error;
      throw this.#error(`section "${path}": ${error.message}`, error);
    }
    return { outcome: { ...where, kind: 'applied', replacedHash: actualHash }, render };
  }

  #decideTool(tool: Tool, section: Section, path: string): ToolDecision | null {
    const known = this.#tools.get(tool);
    if (known !== undefined) return known;
    const { tools } = this.overrides;
    const entry = Object.hasOwn(tools, tool.name) ? tools[tool.name] : undefined;
    let decision: ToolDecision | null = null;
    if (entry !== undefined) {
      const where = { target: 'tool', path, toolName: tool.name } as const;
      const actualHash = contentHash(tool.description);
      if (!section.acceptsOverrides) {
        const reason = `section "${path}" offering tool "${tool.name}" does not accept overrides`;
        decision = { tool, outcome: { ...where, kind: 'refused', reason } };
      } else if (actualHash !== entry.expectedHash) {
        decision = { tool, outcome: staleOutcome(where, entry.expectedHash, actualHash) };
      } else {
        decision = {
          tool: tool.withDescription(this.#checkDescription(tool, entry.description)),
          outcome: { ...where, kind: 'applied', replacedHash: actualHash },
        };
      }
    }
    this.#tools.set(tool, decision);
    return decision;
  }

  /** The description lookup given to a section that accepts overrides, one per path. */
  #describer(section: Section, path: string): ((tool: Tool) => string) | undefined {
    if (!this.#hasToolOverrides || !section.acceptsOverrides) return undefined;
    let describer = this.#describers.get(path);
    if (describer === undefined) {
      describer = (tool) => (this.#decideTool(tool, section, path) ?? { tool }).tool.description;
      this.#describers.set(path, describer);
    }
    return describer;
  }

  /** The rules of the description replaced: `Tool.create`'s for native tools, one line for MCP tools. */
  #checkDescription(tool: Tool, description: string): string {
    const length = tool.origin.kind === 'native' ? characterCount(description) : 0;
    if (length > MAX_TOOL_DESCRIPTION_LENGTH) {
      throw this.#error(
        `tool "${tool.name}": description must be 1-${MAX_TOOL_DESCRIPTION_LENGTH} characters after trimming, ` +
          `got ${length}`,
      );
    }
    if (tool.origin.kind === 'mcp') {
      const bad = NOT_ONE_LINE.exec(description);
      if (bad !== null) {
        throw this.#error(
          `tool "${tool.name}": description of an MCP tool must be one line without control or ` +
            `invisible characters; found ${codePoint(bad)}`,
        );
      }
    } else {
      const bad = INVISIBLE.exec(description);
      if (bad !== null) {
        throw this.#error(
          `tool "${tool.name}": description must hold no control or invisible characters ` +
            `(line breaks and tabs only); found ${codePoint(bad)}`,
        );
      }
    }
    return description;
  }

  #error(message: string, cause?: unknown): PromptOverridesError {
    const { ns, key, tag } = this.overrides;
    return new PromptOverridesError(
      `overrides of prompt "${ns}/${key}" tag "${tag}": ${message}`,
      cause === undefined ? {} : { cause },
    );
  }
}

/** A character a check found, for a message: `U+202E at offset 12` (an offset in UTF-16 units). */
function codePoint(match: RegExpExecArray): string {
  const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  return `U+${code} at offset ${match.index}`;
}
