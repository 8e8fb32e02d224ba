import { z } from 'zod';
import type { Session } from '../../runtime/session.js';
import { Tool } from '../../tools/tool.js';
import { ToolResult } from '../../tools/tool-result.js';
import type { Section } from '../section.js';
import { type DisclosureState, DisclosureWalk, type ReadableSection } from './disclosure-walk.js';
import { openedKeys, promptId, recordOpened } from './opened-sections.js';

/** Name of the tool that opens summarized sections. */
export const OPEN_SECTIONS_TOOL_NAME = 'open_sections';
/** Name of the tool that reads a summarized section without opening it. */
export const READ_SECTION_TOOL_NAME = 'read_section';

/**
 * Renders a summarized section in full, as `read_section` returns it; the
 * walk decides how its children are shown.
 */
export type ReadSectionRenderer = (
  entry: ReadableSection,
  session: Session,
  walk: DisclosureWalk,
) => string;

/** Most keys one `open_sections` call may name: more than any prompt summarizes. */
const MAX_OPEN_SECTION_KEYS = 64;
/** Longest section key the tools take: room for a dotted path four keys deep at the key rule's 64 characters each. */
const MAX_SECTION_KEY_LENGTH = 256;
/** Longest `reason` `open_sections` takes. */
const MAX_OPEN_REASON_LENGTH = 1_000;

/*
 * The bounds keep what a model sends, and the error result that quotes its
 * keys back, small. String lengths are checked by refinements, not
 * `.max()`: `maxLength` would make the schemas unfit for OpenAI's strict
 * mode. The count is checked first and stops the rest (`abort`), so a call
 * with 200,000 keys gets one issue, not one per key.
 */

/** A string of at most `max` characters, refused with the count, never with the text. */
function boundedString(max: number, what: string): z.ZodString {
  return z.string().check((ctx) => {
    if (ctx.value.length <= max) return;
    ctx.issues.push({
      code: 'custom',
      input: ctx.value,
      message: `${what} must be at most ${max} characters, received ${ctx.value.length}`,
    });
  });
}

const OpenSectionsParams = z.strictObject({
  section_keys: z
    .array(z.string())
    .min(1, { error: 'name at least one section key' })
    .max(MAX_OPEN_SECTION_KEYS, {
      error: (issue) =>
        `name at most ${MAX_OPEN_SECTION_KEYS} section keys in one call, received ${(issue.input as unknown[]).length}`,
      abort: true,
    })
    .check((ctx) => {
      // One issue for the first key too long, not one per key.
      const index = ctx.value.findIndex((key) => key.length > MAX_SECTION_KEY_LENGTH);
      if (index === -1) return;
      ctx.issues.push({
        code: 'custom',
        input: ctx.value,
        path: [index],
        message: `a section key must be at most ${MAX_SECTION_KEY_LENGTH} characters, received ${ctx.value[index]!.length}`,
      });
    })
    .describe(
      `Keys of summarized sections, as shown in their hints (dotted paths such as "parent.child"), or of one part of a section. At most ${MAX_OPEN_SECTION_KEYS}.`,
    ),
  reason: boundedString(MAX_OPEN_REASON_LENGTH, 'the reason').describe(
    `Why you need these sections, in at most ${MAX_OPEN_REASON_LENGTH} characters; recorded with the call.`,
  ),
});

const ReadSectionParams = z.strictObject({
  section_key: boundedString(MAX_SECTION_KEY_LENGTH, 'a section key').describe(
    'Key of a summarized section, as shown in its hint.',
  ),
});

/** The value of a successful `open_sections` call. */
export interface OpenSectionsResult {
  /** Keys opened by this call. */
  readonly opened: readonly string[];
  /** Keys that were open already. */
  readonly alreadyOpen: readonly string[];
}

/**
 * Progressive disclosure for one `Prompt`: decides per render which
 * sections are summarized (see {@link DisclosureWalk}) and owns the
 * `open_sections` and `read_section` tools offered while any is. The tools
 * answer for the latest render of the calling session (one prompt may serve
 * many sessions, each with its own opened sections and visibility), and are
 * the same objects on every render, so an unchanged prompt keeps its cached
 * tool list.
 */
export class PromptDisclosure {
  /** False when no section of the template can be summarized: renders skip all of this. */
  readonly active: boolean;
  readonly #id: string;
  readonly #renderRead: ReadSectionRenderer;
  /** Each session's latest render; a render without a session is the fallback. */
  readonly #states = new WeakMap<Session, DisclosureState>();
  #sessionless: DisclosureState | undefined;
  #lists: Map<string, readonly Tool[]> | undefined;

  constructor(
    template: { readonly ns: string; readonly key: string; readonly sections: readonly Section[] },
    renderRead: ReadSectionRenderer,
  ) {
    this.#id = promptId(template);
    this.#renderRead = renderRead;
    this.active = template.sections.some(anySummarizable);
  }

  /**
   * Starts a render: reads what the model opened from the session.
   * `undefined` when the template has nothing to summarize.
   * @throws SessionStoreError `session-not-loaded` for a session whose store is not loaded yet.
   */
  begin(session: Session | undefined): DisclosureWalk | undefined {
    if (!this.active) return undefined;
    return new DisclosureWalk(session === undefined ? [] : openedKeys(session, this.#id));
  }

  /**
   * Ends a render: the tools now answer for it. Returns the disclosure
   * tools to offer (a frozen list, the same one while the same tools are
   * offered), or `undefined` when nothing is summarized.
   */
  finish(walk: DisclosureWalk, session: Session | undefined): readonly Tool[] | undefined {
    const state = walk.state();
    this.#setState(session, state);
    const names: string[] = [];
    if (state.withTools) names.push(OPEN_SECTIONS_TOOL_NAME);
    if (state.readable.size > 0) names.push(READ_SECTION_TOOL_NAME);
    if (names.length === 0) return undefined;
    this.#lists ??= this.#buildLists();
    return this.#lists.get(names.join(','));
  }

  #stateOf(session: Session): DisclosureState | undefined {
    return this.#states.get(session) ?? this.#sessionless;
  }

  #setState(session: Session | undefined, state: DisclosureState): void {
    if (session === undefined) this.#sessionless = state;
    else this.#states.set(session, state);
  }

  #buildLists(): Map<string, readonly Tool[]> {
    const open = this.#openSectionsTool();
    const read = this.#readSectionTool();
    return new Map([
      [OPEN_SECTIONS_TOOL_NAME, Object.freeze([open])],
      [READ_SECTION_TOOL_NAME, Object.freeze([read])],
      [`${OPEN_SECTIONS_TOOL_NAME},${READ_SECTION_TOOL_NAME}`, Object.freeze([open, read])],
    ]);
  }

  #openSectionsTool(): Tool {
    return Tool.create({
      name: OPEN_SECTIONS_TOOL_NAME,
      description:
        'Shows summarized sections of this prompt in full, and offers their tools, from the next turn on.',
      params: OpenSectionsParams,
      handler: ({ section_keys: keys }, context) => {
        const state = this.#stateOf(context.session);
        const opened = new Set(openedKeys(context.session, this.#id));
        const known = (key: string): boolean =>
          state !== undefined && (state.openable.has(key) || state.open.has(key));
        const unknown = [...new Set(keys.filter((key) => !known(key) && !opened.has(key)))];
        if (unknown.length > 0) {
          const valid = state === undefined ? [] : [...state.openable];
          return ToolResult.error(
            `unknown section ${unknown.length === 1 ? 'key' : 'keys'} ${quoted(unknown)}; ` +
              (valid.length === 0
                ? 'no section of this prompt is summarized'
                : `keys that can be opened: ${quoted(valid)}`),
          );
        }
        // Closed at the render, or open then only by a record a failed call has since rolled back.
        const canOpen = (key: string): boolean =>
          state !== undefined && (state.openable.has(key) || state.reopenable.has(key));
        const fresh = [...new Set(keys.filter((key) => canOpen(key) && !opened.has(key)))];
        const alreadyOpen = [...new Set(keys.filter((key) => !fresh.includes(key)))];
        // Keys already recorded as opened are written again: should the call
        // that opened them fail and roll back, this call's opening keeps them.
        // (A key shown in full by its visibility is not recorded.)
        const reopened = alreadyOpen.filter((key) => opened.has(key));
        if (fresh.length + reopened.length > 0) {
          recordOpened(context.session, this.#id, [...fresh, ...reopened]);
        }
        const result: OpenSectionsResult = Object.freeze({
          opened: Object.freeze(fresh),
          alreadyOpen: Object.freeze(alreadyOpen),
        });
        const parts = [
          ...(fresh.length === 0
            ? []
            : [
                `Opened ${quoted(fresh)}: the next render of the prompt shows ${fresh.length === 1 ? 'it' : 'them'} in full, with ${fresh.length === 1 ? 'its' : 'their'} tools.`,
              ]),
          ...(alreadyOpen.length === 0 ? [] : [`Already open: ${quoted(alreadyOpen)}.`]),
        ];
        return ToolResult.ok(result, parts.join(' '));
      },
    });
  }

  #readSectionTool(): Tool {
    return Tool.create({
      name: READ_SECTION_TOOL_NAME,
      description:
        'Returns the full text of a summarized section that offers no tools, without opening it.',
      params: ReadSectionParams,
      handler: ({ section_key: key }, context) => {
        const state = this.#stateOf(context.session);
        const entry = state?.readable.get(key);
        if (entry !== undefined) {
          const walk = new DisclosureWalk(openedKeys(context.session, this.#id));
          const text = this.#renderRead(entry, context.session, walk);
          // The model now sees the keys of the summarized subsections it read: they work too.
          this.#setState(context.session, mergeStates(state, walk.state()));
          return ToolResult.ok(text, `Section "${key}":`);
        }
        if (state?.open.has(key) === true) {
          return ToolResult.error(
            `section "${key}" is not summarized: its full text is already in the prompt`,
          );
        }
        if (state?.openable.has(key) === true) {
          return ToolResult.error(
            `section "${key}" offers tools: call ${OPEN_SECTIONS_TOOL_NAME} with it to see it and use them`,
          );
        }
        const valid = state === undefined ? [] : [...state.readable.keys()];
        return ToolResult.error(
          `unknown section key ${quoted([key])}; ` +
            (valid.length === 0
              ? 'no summarized section can be read'
              : `keys that can be read: ${quoted(valid)}`),
        );
      },
    });
  }
}

function mergeStates(current: DisclosureState | undefined, read: DisclosureState): DisclosureState {
  if (current === undefined) return read;
  return {
    openable: new Set([...current.openable, ...read.openable]),
    open: new Set([...current.open, ...read.open]),
    reopenable: new Set([...current.reopenable, ...read.reopenable]),
    readable: new Map([...current.readable, ...read.readable]),
    withTools: current.withTools || read.withTools,
  };
}

function anySummarizable(section: Section): boolean {
  return section.summarizable || section.children.some(anySummarizable);
}

function quoted(keys: readonly string[]): string {
  return keys.map((key) => JSON.stringify(key)).join(', ');
}
