import type { Tool } from '../tools/tool.js';

/** The line that opens a section's block of tool examples. */
export const TOOL_EXAMPLES_HEADING = 'Tools:';

// A frozen tool list always gives the same block: sections and MCP catalogs
// hand out the same frozen list while their tools are unchanged.
const blocks = new WeakMap<readonly Tool[], string>();

/**
 * The "Tools:" block of a section: one entry per tool that has examples,
 * each example's input as JSON and its output as text; `''` when no tool
 * has examples. The layout is weakincentives' (see docs/prompts.md).
 */
export function renderToolExamples(tools: readonly Tool[]): string {
  const cached = blocks.get(tools);
  if (cached !== undefined) return cached;
  const entries: string[] = [];
  for (const tool of tools) {
    if (tool.examples.length === 0) continue;
    const lines = [`- ${tool.name}: ${tool.description}`, `  - ${tool.name} examples:`];
    for (const example of tool.examples) {
      lines.push(
        `    - description: ${example.description}`,
        '      input:',
        ...fenced(pythonJson(example.input), '        ', 'json'),
        '      output:',
        ...fenced(outputText(example.output), '        ', ''),
      );
    }
    entries.push(lines.join('\n'));
  }
  const block = entries.length === 0 ? '' : [TOOL_EXAMPLES_HEADING, ...entries].join('\n');
  if (Object.isFrozen(tools)) blocks.set(tools, block);
  return block;
}

/** `body` followed by the tools' examples block, if any, after a blank line. */
export function withToolExamples(body: string, tools: readonly Tool[]): string {
  if (tools.length === 0) return body;
  const block = renderToolExamples(tools);
  if (block.length === 0) return body;
  return body.length === 0 ? block : `${body}\n\n${block}`;
}

function outputText(output: unknown): string {
  return typeof output === 'string' ? output : pythonJson(output);
}

/** A fenced block, every line indented; the fence outgrows any backtick run inside. */
function fenced(content: string, indent: string, language: string): string[] {
  const longestRun = Math.max(2, ...(content.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  const lines = content.split('\n').map((line) => (line.length === 0 ? '' : `${indent}${line}`));
  return [`${indent}${fence}${language}`, ...lines, `${indent}${fence}`];
}

/**
 * JSON with a space after `,` and `:`, as Python's `json.dumps` writes it
 * (and weakincentives shows examples): easier to read than compact JSON.
 */
function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value).map(
      ([key, member]) => `${JSON.stringify(key)}: ${pythonJson(member)}`,
    );
    return `{${members.join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
