import { describe, expect, it } from 'vitest';
import { extractTsBlocks } from './code-blocks.js';

const fence = '```';

describe('extractTsBlocks', () => {
  it('reads ts blocks with their fence line, heading and markers, and skips other languages', () => {
    const markdown = [
      '# Title',
      `${fence}sh`,
      'npm test',
      fence,
      '## Use',
      `${fence}ts`,
      "const a = 'x';",
      fence,
      '<!-- not-compiled: a signature listing -->',
      '',
      `${fence}ts`,
      'f(x: T): U',
      fence,
      '<!-- continues-previous-block -->',
      `${fence}ts`,
      'console.log(a);',
      fence,
    ].join('\n');
    const blocks = extractTsBlocks('doc.md', markdown);
    expect(
      blocks.map(({ line, heading, notCompiled, continuesPrevious }) => ({
        line,
        heading,
        notCompiled,
        continuesPrevious,
      })),
    ).toEqual([
      { line: 6, heading: 'Use', notCompiled: undefined, continuesPrevious: false },
      { line: 11, heading: 'Use', notCompiled: 'a signature listing', continuesPrevious: false },
      { line: 15, heading: 'Use', notCompiled: undefined, continuesPrevious: true },
    ]);
    expect(blocks[0]!.code).toBe("const a = 'x';\n");
  });

  it('refuses a not-compiled marker that does not say why', () => {
    for (const marker of ['<!-- not-compiled -->', '<!-- not-compiled: -->']) {
      expect(() => extractTsBlocks('doc.md', `${marker}\n${fence}ts\nx\n${fence}\n`)).toThrow(
        'doc.md:2: a not-compiled marker must say why',
      );
    }
  });

  it('refuses an unclosed fence', () => {
    expect(() => extractTsBlocks('doc.md', `${fence}ts\nx\n`)).toThrow(
      'doc.md:1: fence is never closed',
    );
  });
});
