import { PromptValidationError } from '../../core/errors.js';
import type { Section } from '../section.js';
import { OPEN_SECTIONS_TOOL_NAME, READ_SECTION_TOOL_NAME } from './disclosure-tools.js';

/**
 * Checks, when the template is created, that a section that may be
 * summarized has a summary to show.
 * @throws PromptValidationError naming the section.
 */
export function checkSummarizable(section: Section, path: string): void {
  if (section.summarizable && !section.hasSummary()) {
    throw new PromptValidationError(
      `section "${path}" may be summarized (visibility is 'summary' or a function) but has no summary; give it a summary text`,
    );
  }
}

/**
 * Checks that no tool of a template that may summarize sections takes the
 * name of a disclosure tool.
 * @throws PromptValidationError naming the tool and its section.
 */
export function checkDisclosureToolNames(toolOwners: ReadonlyMap<string, string>): void {
  for (const name of [OPEN_SECTIONS_TOOL_NAME, READ_SECTION_TOOL_NAME]) {
    const owner = toolOwners.get(name);
    if (owner !== undefined) {
      throw new PromptValidationError(
        `tool name "${name}" (section "${owner}") is reserved for progressive disclosure in a prompt whose sections may be summarized`,
      );
    }
  }
}
