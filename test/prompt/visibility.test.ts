/**
 * The `visibility` and `summary` options are checked when a section is
 * built, with the bad value in the message.
 */
import { describe, expect, it } from 'vitest';
import { MarkdownSection, PromptValidationError } from '../../src/index.js';

function build(options: { visibility?: unknown; summary?: unknown }): MarkdownSection {
  return new MarkdownSection({
    key: 'ref',
    title: 'Ref',
    template: 'x',
    ...(options as { visibility?: 'full'; summary?: string }),
  });
}

describe('visibility options', () => {
  it.each([
    ['hidden', '"hidden"'],
    [true, 'true'],
    [{ mode: 'summary' }, 'an object'],
  ])('refuse visibility %j', (visibility, shown) => {
    expect(() => build({ visibility })).toThrow(PromptValidationError);
    expect(() => build({ visibility })).toThrow(
      `section "ref": visibility must be 'full', 'summary' or a function returning one, received ${shown}`,
    );
  });

  it.each([
    ['', '""'],
    ['  \n ', '"  \\n "'],
    [42, '42'],
  ])('refuse summary %j', (summary, shown) => {
    expect(() => build({ summary, visibility: 'summary' })).toThrow(
      `section "ref": summary must be a non-empty string, received ${shown}`,
    );
  });

  it('keep the summary dedented and trimmed, and say whether the section may be summarized', () => {
    const section = build({
      visibility: 'summary',
      summary: '\n    Line one.\n      Line two.\n  ',
    });
    expect(section.summary).toBe('Line one.\n  Line two.');
    expect(section.summarizable).toBe(true);
    expect(build({ visibility: () => 'full' }).summarizable).toBe(true);
    expect(build({ visibility: 'full' }).summarizable).toBe(false);
    expect(build({}).summarizable).toBe(false);
  });
});
