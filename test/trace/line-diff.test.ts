import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffLines } from '../../src/trace/line-diff.js';

describe('diffLines', () => {
  it('marks removed and added lines between kept ones', () => {
    expect(diffLines('a\nb\nc\nd', 'a\nc\nx\nd')).toEqual([' a', '-b', ' c', '+x', ' d']);
  });

  it('keeps everything for equal texts', () => {
    expect(diffLines('one\ntwo', 'one\ntwo')).toEqual([' one', ' two']);
  });

  it('reads back as both texts: kept and removed lines give the old, kept and added the new', () => {
    const lines = fc.array(fc.constantFrom('a', 'b', 'c', ''), { maxLength: 12 });
    fc.assert(
      fc.property(lines, lines, (before, after) => {
        const diff = diffLines(before.join('\n'), after.join('\n'));
        const old = diff.filter((line) => line[0] !== '+').map((line) => line.slice(1));
        const now = diff.filter((line) => line[0] !== '-').map((line) => line.slice(1));
        expect(old.join('\n')).toBe(before.join('\n'));
        expect(now.join('\n')).toBe(after.join('\n'));
      }),
    );
  });

  it('keeps the longest common run of lines', () => {
    const diff = diffLines('x\na\nb\nc\ny', 'a\nb\nc');
    expect(diff.filter((line) => line.startsWith(' '))).toEqual([' a', ' b', ' c']);
  });

  it('diffs prompts of 300,000 lines (a tool per line) without overflowing the stack', () => {
    const lines = Array.from({ length: 300_000 }, (_, i) => `- tool_${i}`);
    const changed = [...lines];
    changed[100_000] = '- renamed';
    const diff = diffLines(lines.join('\n'), changed.join('\n'));
    expect(diff).toHaveLength(300_001);
    expect(diff.filter((line) => !line.startsWith(' '))).toEqual(['-- tool_100000', '+- renamed']);
  });
});
