/**
 * The ```ts blocks of the README and docs/*.md, read as the test and the
 * consumer check need them. A block is compiled unless the line before its
 * fence (blank lines skipped) is a marker:
 *
 * - `<!-- not-compiled: <reason> -->`: shown, never compiled; the reason is
 *   required (a signature listing, a fragment of a larger object, …).
 * - `<!-- continues-previous-block -->`: compiled appended to the file's
 *   previous compiled block, as a reader who ran that one would run this.
 */

/** One fenced ```ts block. */
export interface CodeBlock {
  /** Path relative to the repository root, e.g. `docs/schemas.md`. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The block's text, ending with a newline. */
  readonly code: string;
  /** The nearest `#` heading above the block, without the hashes. */
  readonly heading: string;
  /** Why the block is not compiled, when it carries a `not-compiled` marker. */
  readonly notCompiled?: string;
  /** True when the block carries a `continues-previous-block` marker. */
  readonly continuesPrevious: boolean;
}

const FENCE = /^```(\S*)\s*$/;
const NOT_COMPILED = /^<!--\s*not-compiled:\s*(.*?)\s*-->$/;
const NOT_COMPILED_BARE = /^<!--\s*not-compiled\s*-->$/;
const CONTINUES = /^<!--\s*continues-previous-block\s*-->$/;

/**
 * Every ```ts block of one Markdown text.
 *
 * @throws Error for a `not-compiled` marker without a reason, or an unclosed fence.
 */
export function extractTsBlocks(file: string, markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  let heading = '';
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index]!;
    if (/^#{1,6} /.test(text)) heading = text.replace(/^#+ /, '').trim();
    const fence = FENCE.exec(text);
    if (fence === null) continue;
    const end = lines.findIndex((candidate, at) => at > index && /^```\s*$/.test(candidate));
    if (end === -1) throw new Error(`${file}:${index + 1}: fence is never closed`);
    if (fence[1] === 'ts' || fence[1] === 'typescript') {
      let before = index - 1;
      while (before >= 0 && lines[before]!.trim() === '') before--;
      const marker = before >= 0 ? lines[before]!.trim() : '';
      if (NOT_COMPILED_BARE.test(marker) || NOT_COMPILED.exec(marker)?.[1] === '') {
        throw new Error(`${file}:${index + 1}: a not-compiled marker must say why`);
      }
      const reason = NOT_COMPILED.exec(marker)?.[1];
      blocks.push({
        file,
        line: index + 1,
        code: `${lines.slice(index + 1, end).join('\n')}\n`,
        heading,
        ...(reason === undefined ? {} : { notCompiled: reason }),
        continuesPrevious: CONTINUES.test(marker),
      });
    }
    index = end;
  }
  return blocks;
}
