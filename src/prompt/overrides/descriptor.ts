/**
 * What of a prompt overrides may replace, with content hashes, and seed
 * overrides made from the prompt's current text.
 */
import type { Tool } from '../../tools/tool.js';
import type { PromptTemplate } from '../prompt-template.js';
import type { Section } from '../section.js';
import { contentHash } from './content-hash.js';
import {
  checkOverridesRef,
  DEFAULT_OVERRIDES_TAG,
  parsePromptOverrides,
  type PromptOverrides,
  type SectionOverride,
  type ToolOverride,
} from './prompt-overrides.js';

/** A section whose body overrides may replace. */
export interface SectionDescriptor {
  /** Dotted path, as in the section's heading. */
  readonly path: string;
  /** {@link contentHash} of the section's body template. */
  readonly contentHash: string;
  /** The body template. */
  readonly body: string;
}

/** A tool whose description overrides may replace. */
export interface ToolDescriptor {
  readonly name: string;
  /** Dotted path of the section offering it. */
  readonly path: string;
  /** {@link contentHash} of the description. */
  readonly descriptionHash: string;
  readonly description: string;
}

/** What of a prompt overrides may replace: the sections and tools that accept them. */
export interface PromptDescriptor {
  readonly ns: string;
  readonly key: string;
  readonly sections: readonly SectionDescriptor[];
  readonly tools: readonly ToolDescriptor[];
}

/**
 * Describes every section of `template` that accepts overrides and has a
 * body template, and every tool those sections offer now (an MCP section's
 * tools once it is connected; none before), in tree order.
 *
 * @example
 * const { sections } = describePrompt(template);
 * sections.map((section) => section.path); // ['task', 'task.style']
 */
export function describePrompt(template: PromptTemplate<unknown>): PromptDescriptor {
  const sections: SectionDescriptor[] = [];
  const tools: ToolDescriptor[] = [];
  walkSections(template.sections, (section, path) => {
    if (!section.acceptsOverrides) return;
    const body = section.bodyTemplate();
    if (body !== undefined) {
      sections.push(Object.freeze({ path, contentHash: contentHash(body), body }));
    }
    for (const tool of section.toolsAtCreation()) tools.push(describeTool(tool, path));
  });
  return Object.freeze({
    ns: template.ns,
    key: template.key,
    sections: Object.freeze(sections),
    tools: Object.freeze(tools),
  });
}

/** Options of {@link seedPromptOverrides}. */
export interface SeedPromptOverridesOptions {
  /** @default 'latest' */
  readonly tag?: string;
}

/**
 * Overrides that replace every overridable body and description with its
 * current text, each with its content hash: the starting point of an
 * overrides file, to edit from there.
 *
 * @throws PromptOverridesError for a bad tag.
 */
export function seedPromptOverrides(
  template: PromptTemplate<unknown>,
  options: SeedPromptOverridesOptions = {},
): PromptOverrides {
  const descriptor = describePrompt(template);
  const tag = options.tag ?? DEFAULT_OVERRIDES_TAG;
  checkOverridesRef({ ns: descriptor.ns, key: descriptor.key, tag });
  const sections: Record<string, SectionOverride> = Object.create(null) as Record<
    string,
    SectionOverride
  >;
  for (const section of descriptor.sections) {
    sections[section.path] = { expectedHash: section.contentHash, body: section.body };
  }
  const tools: Record<string, ToolOverride> = Object.create(null) as Record<string, ToolOverride>;
  for (const tool of descriptor.tools) {
    tools[tool.name] = { expectedHash: tool.descriptionHash, description: tool.description };
  }
  return parsePromptOverrides(
    { ns: descriptor.ns, key: descriptor.key, tag, sections, tools },
    { source: `seed of prompt "${descriptor.ns}/${descriptor.key}"` },
  );
}

/** Calls `visit` for every section of the tree, depth first, with its dotted path. */
export function walkSections(
  sections: readonly Section[],
  visit: (section: Section, path: string) => void,
  parentPath = '',
): void {
  for (const section of sections) {
    const path = parentPath === '' ? section.key : `${parentPath}.${section.key}`;
    visit(section, path);
    walkSections(section.children, visit, path);
  }
}

function describeTool(tool: Tool, path: string): ToolDescriptor {
  return Object.freeze({
    name: tool.name,
    path,
    descriptionHash: contentHash(tool.description),
    description: tool.description,
  });
}
