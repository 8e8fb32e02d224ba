import { describe, expect, it } from 'vitest';
import { normalizeToolName, splitToolName, ToolNameError } from '../../src/executor/tool-name.js';

describe('normalizeToolName', () => {
  it.each([
    ['kubernetes-server__get_pods', 'kubernetes-server.get_pods'],
    ['server__tool__extra', 'server.tool__extra'],
    ['server.tool', 'server.tool'],
    ['server.tool__x', 'server.tool__x'],
    ['get_pods', 'get_pods'],
    ['__tool', '.tool'],
  ])('%s → %s', (name, expected) => {
    expect(normalizeToolName(name)).toBe(expected);
  });
});

describe('a name that is not a string', () => {
  it.each([
    [undefined, 'nothing'],
    [null, 'null'],
    [42, '42'],
    [{ server: 'a', tool: 'b' }, 'an object'],
  ])('%j is a ToolNameError showing the right form', (name, received) => {
    const message = `tool name must be a string like "server.tool" (e.g. "kubernetes.get_pods"), received ${received}`;
    for (const call of [normalizeToolName, splitToolName]) {
      let error: unknown;
      try {
        call(name as never);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ToolNameError);
      expect((error as ToolNameError).message).toBe(message);
      expect((error as ToolNameError).toolName).toBe(received);
    }
  });
});

describe('splitToolName', () => {
  it.each([
    ['kubernetes.get_pods', 'kubernetes', 'get_pods'],
    ['kubernetes-server__get_pods', 'kubernetes-server', 'get_pods'],
    ['server__tool__extra', 'server', 'tool__extra'],
    ['_s.9-t', '_s', '9-t'],
  ])('splits %s', (name, server, tool) => {
    expect(splitToolName(name)).toStrictEqual({ server, tool });
  });

  it('names a long or unprintable name by its length, not whole', () => {
    for (const name of ['x'.repeat(100_000), 'a\u001b[8mb']) {
      expect(() => splitToolName(name)).toThrow(
        `tool name a string of ${name.length} characters must look like "server.tool"`,
      );
    }
  });

  it.each([
    'server.tool.extra',
    '.tool',
    'server.',
    'my server.my tool',
    '-server.tool',
    'server.-tool',
    'get_pods',
    '',
    'sérver.tool',
    '__tool',
  ])('refuses %j with an example of the right form', (name) => {
    let caught: unknown;
    try {
      splitToolName(name);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ToolNameError);
    const error = caught as ToolNameError;
    expect(error.code).toBe('tool-name');
    expect(error.name).toBe('ToolNameError');
    expect(error.toolName).toBe(name);
    expect(error.message).toBe(
      `tool name ${JSON.stringify(name)} must look like "server.tool" (e.g. "kubernetes.get_pods")`,
    );
  });
});
