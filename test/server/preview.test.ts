/**
 * Pins `buildPreview` with a small preset: the exact head/omitted/tail
 * shape for JSON arrays and objects, CSV rows and text lines; the per-line
 * cut and its boundary; the total cap, which keeps two thirds head and one
 * third tail and never splits a surrogate pair; and that a preview is never
 * longer than its input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTEXT_PRESETS, type ContextPreset } from '../../src/server/context-presets.js';
import { buildPreview } from '../../src/server/preview.js';
import { serializeResult } from '../../src/server/result-format.js';

const SMALL: ContextPreset = {
  threshold: 0,
  jsonHeadItems: 2,
  jsonTailItems: 1,
  jsonMaxKeys: 2,
  csvHeadRows: 1,
  csvTailRows: 1,
  textHeadLines: 2,
  textTailLines: 1,
  maxLineChars: 1_000,
  maxPreviewChars: 10_000,
};

const long = (i: number): string => `item-${i}-${'x'.repeat(30)}`;

describe('buildPreview', () => {
  it('keeps head and tail items of a JSON array', () => {
    const items = Array.from({ length: 6 }, (_, i) => long(i));
    expect(buildPreview(serializeResult(items), SMALL)).toBe(
      [
        '[',
        `  "${long(0)}",`,
        `  "${long(1)}",`,
        '  ... (3 items omitted) ...',
        `  "${long(5)}"`,
        ']',
      ].join('\n'),
    );
  });

  it('returns an array of at most head + tail items as indented JSON', () => {
    const items = [long(0), long(1), long(2)];
    expect(buildPreview(serializeResult(items), SMALL)).toBe(JSON.stringify(items, null, 2));
  });

  it('indents nested items and keeps the first keys of an object', () => {
    const value = { a: { n: long(1) }, b: [long(2)], c: long(3), d: long(4) };
    expect(buildPreview(serializeResult(value), SMALL)).toBe(
      [
        '{',
        '  "a": {',
        `    "n": "${long(1)}"`,
        '  },',
        '  "b": [',
        `    "${long(2)}"`,
        '  ],',
        '  ... (2 keys omitted) ...',
        '}',
      ].join('\n'),
    );
  });

  it('previews JSON text by item only when it round-trips exactly', () => {
    const items = Array.from({ length: 6 }, (_, i) => long(i));
    expect(buildPreview(serializeResult(JSON.stringify(items, null, 4)), SMALL)).toBe(
      [
        '[',
        `  "${long(0)}",`,
        `  "${long(1)}",`,
        '  ... (3 items omitted) ...',
        `  "${long(5)}"`,
        ']',
      ].join('\n'),
    );
    // Values JSON.parse would change are shown as the tool wrote them, as text lines.
    const exact = [
      '[12345678901234567890, 1e999, 3, 4, 5]',
      '{"b":1,"a":2,"10":3,"2":4}',
      '{"status":"denied","status":"granted","x":1}',
      '["\\u0041", "b", "c", "d"]',
    ];
    for (const text of exact) expect(buildPreview(serializeResult(text), SMALL)).toBe(text);
  });

  it('falls back to the text preview for JSON nested too deep to re-serialise', () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const result = serializeResult(deep);
    expect(() => buildPreview(result, SMALL)).not.toThrow();
    const preview = buildPreview(result, SMALL);
    expect(preview.length).toBeLessThanOrEqual(deep.length);
    expect(preview.startsWith('[[[[')).toBe(true);
  });

  it('keeps the header, head rows and tail rows of CSV', () => {
    const rows = Array.from({ length: 5 }, (_, i) => `${i},${long(i)}`);
    const csv = ['id,name', ...rows].join('\r\n') + '\r\n';
    expect(serializeResult(csv).format).toBe('csv');
    expect(buildPreview(serializeResult(csv), SMALL)).toBe(
      ['id,name', rows[0], '... (3 rows omitted) ...', rows[4]].join('\n'),
    );
  });

  it('keeps head and tail lines of text, ignoring one final line break', () => {
    const lines = Array.from({ length: 6 }, (_, i) => long(i));
    const text = lines.join('\n') + '\n';
    expect(buildPreview(serializeResult(text, 'text'), SMALL)).toBe(
      [lines[0], lines[1], '... (3 lines omitted) ...', lines[5]].join('\n'),
    );
    const three = lines.slice(0, 3).join('\r\n');
    expect(buildPreview(serializeResult(three, 'text'), SMALL)).toBe(lines.slice(0, 3).join('\n'));
  });

  it('cuts a line only when the cut line with its marker is shorter', () => {
    const preset = { ...SMALL, maxLineChars: 10 };
    // Marker for a 33-character line is " ... (23 chars omitted)", 23 characters: 10 + 23 = 33.
    const kept = 'k'.repeat(33);
    const cut = 'c'.repeat(34);
    expect(buildPreview(serializeResult(`${kept}\n${cut}`, 'text'), preset)).toBe(
      `${kept}\n${'c'.repeat(10)} ... (24 chars omitted)`,
    );
  });

  it('caps the whole preview at two thirds head, one third tail', () => {
    const text = 'h'.repeat(500) + 't'.repeat(500);
    const preview = buildPreview(serializeResult(text, 'text'), { ...SMALL, maxPreviewChars: 100 });
    expect(preview).toBe(`${'h'.repeat(47)}\n... (930 chars omitted) ...\n${'t'.repeat(23)}`);
    expect(preview).toHaveLength(99);
  });

  it('never splits a surrogate pair when capping', () => {
    const text = '😀'.repeat(500);
    const preview = buildPreview(serializeResult(text, 'text'), { ...SMALL, maxPreviewChars: 100 });
    expect(preview).toBe(`${'😀'.repeat(23)}\n... (932 chars omitted) ...\n${'😀'.repeat(11)}`);
  });

  it('keeps only the start when the budget cannot hold the marker', () => {
    const preview = buildPreview(serializeResult('x'.repeat(40), 'text'), {
      ...SMALL,
      maxPreviewChars: 20,
    });
    expect(preview).toBe('x'.repeat(20));
  });

  it('never makes a preview longer than its input', () => {
    const presets = [
      SMALL,
      { ...SMALL, maxLineChars: 3, maxPreviewChars: 40 },
      CONTEXT_PRESETS.sql_query,
    ];
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.jsonValue({ maxDepth: 3 })),
        fc.constantFrom(...presets),
        (value, preset) => {
          const result = serializeResult(value);
          expect(buildPreview(result, preset).length).toBeLessThanOrEqual(result.text.length);
        },
      ),
    );
  });
});
