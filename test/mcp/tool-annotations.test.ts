/**
 * `toAnnotations`: the hints a server gives that are booleans, a display
 * name cleaned and masked, frozen; tools without a display name share one
 * object per combination of hints. And a tool keeps its own copy of
 * whatever annotations it is given.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SecretRedactor } from '../../src/mcp/redact.js';
import type { McpToolDescription } from '../../src/mcp/server-connection.js';
import { toAnnotations } from '../../src/mcp/tool-annotations.js';
import { Tool } from '../../src/tools/tool.js';
import { ToolResult } from '../../src/tools/tool-result.js';

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
const redactor = new SecretRedactor(['sk-live-123456']);

/** A listed tool with `annotations` as given (the listing check is bypassed: anything goes). */
function listed(annotations: unknown, title?: string): McpToolDescription {
  return {
    name: 'search',
    inputSchema: { type: 'object' },
    ...(title === undefined ? {} : { title }),
    ...(annotations === undefined ? {} : { annotations }),
  } as McpToolDescription;
}

const hintArb = fc.constantFrom(undefined, true, false, 'yes', 1, null);

describe('toAnnotations', () => {
  it('keeps exactly the hints that are booleans, frozen, shared by tools that have the same', () => {
    fc.assert(
      fc.property(fc.tuple(hintArb, hintArb, hintArb, hintArb), (hints) => {
        const given = Object.fromEntries(
          HINTS.flatMap((name, index) =>
            hints[index] === undefined ? [] : [[name, hints[index]]],
          ),
        );
        const expected = Object.fromEntries(
          HINTS.flatMap((name, index) =>
            typeof hints[index] === 'boolean' ? [[name, hints[index]]] : [],
          ),
        );
        const first = toAnnotations(listed(given), redactor);
        expect(first).toStrictEqual(expected);
        expect(Object.isFrozen(first)).toBe(true);
        // Another tool with the same hints, spelled in another order: the same object.
        const reordered = Object.fromEntries(Object.entries(given).reverse());
        expect(toAnnotations(listed(reordered), redactor)).toBe(first);
      }),
    );
  });

  it('gives tools with different hints different objects', () => {
    const readOnly = toAnnotations(listed({ readOnlyHint: true }), redactor);
    expect(toAnnotations(listed({ readOnlyHint: false }), redactor)).not.toBe(readOnly);
    expect(toAnnotations(listed({ openWorldHint: true }), redactor)).not.toBe(readOnly);
    expect(toAnnotations(listed(undefined), redactor)).toStrictEqual({});
  });

  it('gives a tool with a display name its own object, cleaned and masked', () => {
    const annotations = toAnnotations(
      listed({ readOnlyHint: true }, 'Search\nwith sk-live-123456'),
      redactor,
    );
    expect(annotations.readOnlyHint).toBe(true);
    expect(annotations.title).not.toContain('\n');
    expect(annotations.title).not.toContain('sk-live-123456');
    expect(Object.isFrozen(annotations)).toBe(true);
    expect(toAnnotations(listed({ readOnlyHint: true }), redactor)).not.toHaveProperty('title');
    // The annotations' own title counts when the tool has none.
    expect(toAnnotations(listed({ title: 'Old title' }), redactor).title).toBe('Old title');
  });
});

describe('Tool.trusted', () => {
  const options = {
    name: 'probe',
    description: 'A probe',
    params: z.object({}),
    handler: () => ToolResult.ok(null),
  };

  // A tool keeps the values its annotations have when it is made: the ratchet
  // reads the hints, and a frozen object can still answer through a getter
  // or its prototype (a shortcut that kept frozen objects as given let them).
  it('copies what it is given, so that no getter or prototype changes a hint later', () => {
    let reads = 0;
    const flipping = Object.freeze({
      get openWorldHint(): boolean {
        reads += 1;
        return reads === 1;
      },
    });
    const fromGetter = Tool.trusted({ ...options, annotations: flipping });
    expect([fromGetter.annotations.openWorldHint, fromGetter.annotations.openWorldHint]).toEqual([
      true,
      true,
    ]);
    const prototype: { readOnlyHint?: boolean } = { readOnlyHint: true };
    const inherited = Tool.trusted({
      ...options,
      annotations: Object.freeze(Object.create(prototype) as { readOnlyHint?: boolean }),
    });
    prototype.readOnlyHint = false;
    expect(inherited.annotations).toStrictEqual({});
    expect(Object.isFrozen(Tool.trusted(options).annotations)).toBe(true);
  });

  it('still copies and freezes what Tool.create is given', () => {
    const given = { readOnlyHint: true };
    const tool = Tool.create({ ...options, annotations: given });
    given.readOnlyHint = false;
    expect(tool.annotations).toStrictEqual({ readOnlyHint: true });
    expect(Object.isFrozen(tool.annotations)).toBe(true);
  });
});
