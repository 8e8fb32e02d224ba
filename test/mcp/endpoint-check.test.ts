/**
 * Pins `compareToolLists`: the same tools with the same input schemas (keys
 * in any order) are no difference; otherwise one line lists missing names,
 * extra names and names whose input schema changed, in that order, each in
 * the order of its list. Descriptions and other fields are not compared. A
 * schema that cannot be written as JSON within the schema bounds is changed.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { compareToolLists } from '../../src/mcp/endpoint-check.js';
import { countedHoles } from '../support/json-text.js';

function tool(
  name: string,
  properties: Record<string, object> = {},
  extra: Partial<Tool> = {},
): Tool {
  return { name, inputSchema: { type: 'object', properties }, ...extra };
}

describe('compareToolLists', () => {
  it('finds no difference between equal lists, whatever their order', () => {
    expect(compareToolLists([tool('a'), tool('b')], [tool('b'), tool('a')])).toBeUndefined();
    expect(compareToolLists([], [])).toBeUndefined();
  });

  it('compares input schemas by content, not by key order', () => {
    const normal: Tool = {
      name: 'read',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    };
    const isolated: Tool = {
      name: 'read',
      inputSchema: { required: ['path'], properties: { path: { type: 'string' } }, type: 'object' },
    };
    expect(compareToolLists([normal], [isolated])).toBeUndefined();
  });

  it('ignores descriptions, titles and output schemas', () => {
    expect(
      compareToolLists(
        [tool('a', {}, { description: 'one', title: 'A' })],
        [tool('a', {}, { description: 'two', outputSchema: { type: 'object' } })],
      ),
    ).toBeUndefined();
  });

  it('names tools missing from the isolated deployment', () => {
    expect(compareToolLists([tool('a'), tool('b'), tool('c')], [tool('b')])).toBe('missing a, c');
  });

  it('names tools only the isolated deployment has', () => {
    expect(compareToolLists([tool('a')], [tool('z'), tool('a'), tool('y')])).toBe('extra z, y');
  });

  it('names tools whose input schema changed', () => {
    expect(
      compareToolLists(
        [tool('a', { n: { type: 'number' } }), tool('b')],
        [tool('a', { n: { type: 'string' } }), tool('b')],
      ),
    ).toBe('different input schema for a');
  });

  it('lists missing, extra and changed together, in that order', () => {
    expect(
      compareToolLists(
        [tool('keep'), tool('gone'), tool('moved', { x: {} })],
        [tool('moved', { y: {} }), tool('new'), tool('keep')],
      ),
    ).toBe('missing gone; extra new; different input schema for moved');
  });

  it('counts a schema it cannot write within the schema bounds as changed, reading no more of it', () => {
    // An in-process server's getter may give a schema of billions of holes on a later read.
    const { holes, reads } = countedHoles();
    const huge = tool('a', { n: { enum: holes } });
    expect(compareToolLists([huge], [huge])).toBe('different input schema for a');
    expect(reads()).toBe(0);
    const cyclic: Record<string, object> = {};
    cyclic['self'] = cyclic;
    expect(compareToolLists([tool('b', cyclic)], [tool('b', cyclic)])).toBe(
      'different input schema for b',
    );
  });
});
