import { PromptRenderError } from '../../core/errors.js';
import { trimBodyEdges } from '../template-text.js';
import type { Tool } from '../../tools/tool.js';
import type { Section, SectionRenderContext } from '../section.js';

/** A summarized section the model may read with `read_section`: where it was rendered. */
export interface ReadableSection {
  readonly section: Section;
  readonly depth: number;
  readonly number: string;
  readonly path: string;
}

/** What one render found: the keys the disclosure tools accept. */
export interface DisclosureState {
  /** Keys `open_sections` would open: summarized sections and their closed parts. */
  readonly openable: ReadonlySet<string>;
  /** Keys shown in full: every section rendered in full, and the opened parts. */
  readonly open: ReadonlySet<string>;
  /**
   * Those of `open` that the session recorded as opened: a failed call may
   * have rolled that record back since the render, and `open_sections`
   * then opens them anew.
   */
  readonly reopenable: ReadonlySet<string>;
  /** Summarized sections without tools, which `read_section` reads. */
  readonly readable: ReadonlyMap<string, ReadableSection>;
  /** True when a summarized section offers tools, so `open_sections` is offered. */
  readonly withTools: boolean;
}

/** A summarized section as rendered: its body (summary and hint) and the tools it still offers. */
export interface SummaryView {
  readonly body: string;
  readonly tools: readonly Tool[];
}

/**
 * The disclosure side of one render: decides, section by section, whether
 * it is shown in full or summarized, and records the keys the
 * `open_sections` and `read_section` tools will accept.
 */
export class DisclosureWalk {
  readonly #opened: ReadonlySet<string>;
  readonly #openable = new Set<string>();
  readonly #open = new Set<string>();
  readonly #reopenable = new Set<string>();
  readonly #readable = new Map<string, ReadableSection>();
  #withTools = false;

  /** @param opened the keys the model opened for this prompt, from the session. */
  constructor(opened: readonly string[]) {
    this.#opened = new Set(opened);
  }

  /**
   * `undefined` when the section is shown in full (the caller renders its
   * body, children and tools); otherwise its summary view, children hidden.
   * @throws PromptRenderError when a section to summarize has no summary.
   */
  summaryOf(
    section: Section,
    params: unknown,
    context: SectionRenderContext,
  ): SummaryView | undefined {
    const { path, session } = context;
    if (!section.summarizable) {
      this.#open.add(path);
      return undefined;
    }
    const parts = section.summaryParts();
    if (this.#opened.has(path)) this.#reopenable.add(path);
    if (
      this.#opened.has(path) ||
      section.visibilityFor(params, session === undefined ? { path } : { path, session }) === 'full'
    ) {
      this.#open.add(path);
      for (const part of parts) this.#open.add(`${path}.${part}`);
      return undefined;
    }
    if (!section.hasSummary()) {
      throw new PromptRenderError(
        `section "${path}": its visibility function chose 'summary', but the section has no summary text`,
      );
    }
    this.#openable.add(path);
    const openedParts = new Set<string>();
    for (const part of parts) {
      const key = `${path}.${part}`;
      if (this.#opened.has(key)) {
        openedParts.add(part);
        this.#open.add(key);
        this.#reopenable.add(key);
      } else {
        this.#openable.add(key);
      }
    }
    const closedParts = parts.length - openedParts.size;
    const summary = trimBodyEdges(
      section.renderSummary(params as never, { ...context, openedParts }),
    );
    const tools = section.summaryTools(openedParts);
    // Every part opened one by one and no child hidden: nothing is left to open.
    if (parts.length > 0 && closedParts === 0 && section.children.length === 0) {
      this.#openable.delete(path);
      this.#open.add(path);
      return { body: summary, tools };
    }
    const withTools = parts.length > 0 || subtreeHasTools(section);
    if (withTools) this.#withTools = true;
    else this.#readable.set(path, { section, depth: context.depth, number: context.number, path });
    const hint = closedParts > 0 ? partsHint(path) : sectionHint(path, section.children, withTools);
    return { body: summary.length === 0 ? hint : `${summary}\n\n${hint}`, tools };
  }

  /** What the walk found, for the disclosure tools. */
  state(): DisclosureState {
    return {
      openable: this.#openable,
      open: this.#open,
      reopenable: this.#reopenable,
      readable: this.#readable,
      withTools: this.#withTools,
    };
  }
}

/** True when the section or a descendant offers tools (as known now). */
function subtreeHasTools(section: Section): boolean {
  return section.toolsAtCreation().length > 0 || section.children.some(subtreeHasTools);
}

/** The hint under a summarized section: which tool shows the rest, and with which key. */
function sectionHint(path: string, children: readonly Section[], withTools: boolean): string {
  const subsections =
    children.length === 0
      ? ''
      : ` with its subsections (${children.map((child) => `${path}.${child.key}`).join(', ')})`;
  const line = withTools
    ? `[Summary only. Call \`open_sections\` with key "${path}" to show this section in full${subsections} and to offer its tools.]`
    : `[Summary only. Call \`read_section\` with key "${path}" to read this section in full${subsections}.]`;
  return `---\n${line}`;
}

/** The hint under a section that opens part by part (an MCP section: server by server). */
function partsHint(path: string): string {
  return `---\n[Summary only. Call \`open_sections\` with one of the keys listed above to show that one alone and offer its tools, or with key "${path}" to open everything.]`;
}
