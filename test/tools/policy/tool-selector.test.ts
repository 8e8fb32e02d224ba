import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PromptValidationError, Tool, ToolResult, type ToolOrigin } from '../../../src/index.js';
import { toolMatcher } from '../../../src/tools/policy/tool-selector.js';

function tool(name: string, origin?: ToolOrigin): Tool {
  return Tool.create({
    name,
    description: 'A tool',
    params: z.object({}),
    handler: () => ToolResult.ok(null),
    ...(origin === undefined ? {} : { origin }),
  });
}

describe('toolMatcher', () => {
  it('matches every tool when there is no selector', () => {
    expect(toolMatcher(undefined, 'x')(tool('anything'))).toBe(true);
  });

  it('matches the offered name, or an MCP tool’s own name on its server', () => {
    const matches = toolMatcher(['write_file', 'deploy'], 'x');
    expect(matches(tool('deploy'))).toBe(true);
    expect(
      matches(tool('fs_write_file', { kind: 'mcp', server: 'fs', originalName: 'write_file' })),
    ).toBe(true);
    expect(
      matches(tool('fs_read_file', { kind: 'mcp', server: 'fs', originalName: 'read_file' })),
    ).toBe(false);
    // A native tool's name is its only name.
    expect(matches(tool('fs_write_file'))).toBe(false);
  });

  it('uses a predicate as it is', () => {
    const matches = toolMatcher((candidate) => candidate.name.startsWith('db_'), 'x');
    expect(matches(tool('db_drop'))).toBe(true);
    expect(matches(tool('web_get'))).toBe(false);
  });

  it.each<[unknown, string]>([
    [
      'deploy',
      'requireApproval: tools must be an array of tool names or a function of the tool, received string',
    ],
    [
      ['deploy', ''],
      'requireApproval: tools[1] must be a tool name (a non-empty string), received ""',
    ],
    [[7], 'requireApproval: tools[0] must be a tool name (a non-empty string), received 7'],
  ])('refuses %j, naming the entry', (selector, message) => {
    expect(() => toolMatcher(selector as string[], 'requireApproval: tools')).toThrow(
      PromptValidationError,
    );
    expect(() => toolMatcher(selector as string[], 'requireApproval: tools')).toThrow(message);
  });
});
