/**
 * The syntax scan agrees with `JSON.parse` on what is JSON: on any JSON
 * text, and on near-JSON (a JSON text with one character taken out,
 * replaced or put in), where it must find an error exactly when the
 * engine refuses the text, at a place inside it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from '../../src/core/json-syntax.js';

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** JSON texts, containers most of them: their brackets and commas are where edits matter. */
const jsonText = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 4 }).map((value) => JSON.stringify(value)),
  fc
    .dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 })
    .map((value) => JSON.stringify(value, null, 1)),
);

/** Where to edit: anywhere, or at one of the text's structural characters. */
function placeIn(text: string, at: number, structural: boolean): number {
  if (text.length === 0) return 0;
  const marks = [...text.matchAll(/[{}[\],:"]/g)].map((match) => match.index);
  return structural && marks.length > 0 ? (marks[at % marks.length] ?? 0) : at % text.length;
}

const edited = fc
  .tuple(
    jsonText,
    fc.nat(),
    fc.boolean(),
    fc.constantFrom(
      '',
      ',',
      '}',
      ']',
      '"',
      ':',
      '\\',
      '\n',
      '\u0001',
      'x',
      '0',
      '-',
      '.',
      'e',
      ' ',
    ),
    fc.boolean(),
  )
  .map(([text, at, structural, char, replace]) => {
    const place = placeIn(text, at, structural);
    return text.slice(0, place) + char + text.slice(place + (replace ? 1 : 0));
  });

describe('findJsonSyntaxError against JSON.parse', () => {
  it('finds nothing in a JSON text', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 6 }), (text) => {
        expect(findJsonSyntaxError(text)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('finds an error in an edited JSON text exactly when JSON.parse refuses it', () => {
    fc.assert(
      fc.property(edited, (text) => {
        const issue = findJsonSyntaxError(text);
        expect(issue === undefined, JSON.stringify(text)).toBe(parses(text));
        if (issue !== undefined) {
          expect(issue.offset).toBeGreaterThanOrEqual(0);
          expect(issue.offset).toBeLessThanOrEqual(text.length);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
