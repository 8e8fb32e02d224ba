// Every ```ts block of README.md and docs/*.md is a module that imports the
// package by its public entries (`mcp-sections`, `mcp-sections/server`, …,
// mapped to `src/` from package.json `exports`) and must type-check with the
// repository's compiler options. A block that is not meant to compile carries
// `<!-- not-compiled: reason -->` (see ./code-blocks.ts).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractTsBlocks, type CodeBlock } from './code-blocks.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Blocks whose text other work in progress owns (issue 16): compiled and
 * reported, but not failed on, until that work lands. Remove an entry once
 * its blocks compile.
 */
const OWNED_ELSEWHERE: readonly { file: string; heading?: string; reason: string }[] = [];

function ownedElsewhere(block: CodeBlock): string | undefined {
  return OWNED_ELSEWHERE.find(
    (entry) =>
      entry.file === block.file && (entry.heading === undefined || entry.heading === block.heading),
  )?.reason;
}

const markdownFiles = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const blocks = markdownFiles.flatMap((file) =>
  extractTsBlocks(file, readFileSync(path.join(root, file), 'utf8')),
);

/** One module given to the compiler: a block, or a block and its continuations. */
interface Unit {
  readonly fileName: string;
  readonly text: string;
  /** Where each block starts in `text` (0-based line) and the block. */
  readonly segments: readonly { readonly startLine: number; readonly block: CodeBlock }[];
}

function units(): Unit[] {
  const result: { fileName: string; text: string; segments: Unit['segments'][number][] }[] = [];
  for (const block of blocks) {
    if (block.notCompiled !== undefined) continue;
    const previous = result.at(-1);
    if (block.continuesPrevious) {
      if (previous === undefined || previous.segments[0]!.block.file !== block.file) {
        throw new Error(
          `${block.file}:${block.line}: continues-previous-block has no previous block`,
        );
      }
      previous.segments.push({ startLine: previous.text.split('\n').length - 1, block });
      previous.text += block.code;
      continue;
    }
    const slug = block.file.replace(/[^a-zA-Z0-9]+/g, '-');
    result.push({
      fileName: path.join(root, 'test/docs/.blocks', `${slug}-L${block.line}.ts`),
      text: block.code,
      segments: [{ startLine: 0, block }],
    });
  }
  return result;
}

/** `mcp-sections/<entry>` → the source file behind its `types`, from package.json `exports`. */
function entryPaths(): Record<string, string[]> {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, { types: string }>;
  };
  return Object.fromEntries(
    Object.entries(manifest.exports).map(([entry, target]) => [
      path.posix.join(manifest.name, entry),
      [target.types.replace(/^\.\/dist\//, './').replace(/\.d\.ts$/, '.ts')],
    ]),
  );
}

/** Diagnostics per block, keyed by `file:line` of the block's fence. */
function check(all: readonly Unit[]): Map<string, string[]> {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.join(root, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (parsed === undefined) throw new Error('tsconfig.json could not be read');
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: true,
    declaration: false,
    sourceMap: false,
    baseUrl: root,
    paths: entryPaths(),
    moduleDetection: ts.ModuleDetectionKind.Force,
  };
  const virtual = new Map(all.map((unit) => [unit.fileName, unit.text]));
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name);
  host.readFile = (name) => virtual.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) => {
    const text = virtual.get(name);
    return text === undefined
      ? getSourceFile.call(host, name, language, ...rest)
      : ts.createSourceFile(name, text, language, true);
  };
  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
  const found = new Map<string, string[]>();
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const unit = all.find((candidate) => candidate.fileName === diagnostic.file?.fileName);
    if (unit === undefined || diagnostic.start === undefined || diagnostic.file === undefined) {
      // Not in a block: an option or a library file; blame every block.
      for (const candidate of all) {
        for (const { block } of candidate.segments) {
          const key = `${block.file}:${block.line}`;
          found.set(key, [...(found.get(key) ?? []), `TS${diagnostic.code}: ${message}`]);
        }
      }
      continue;
    }
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const segment = unit.segments.findLast((candidate) => candidate.startLine <= line)!;
    const { block } = segment;
    const at = `${block.file}:${block.line + 1 + line - segment.startLine}:${character + 1}`;
    const key = `${block.file}:${block.line}`;
    found.set(key, [...(found.get(key) ?? []), `${at} TS${diagnostic.code}: ${message}`]);
  }
  return found;
}

describe('code blocks of README.md and docs/*.md', () => {
  let diagnostics = new Map<string, string[]>();
  beforeAll(() => {
    diagnostics = check(units());
  }, 180_000);

  it('finds the README quickstart and the docs blocks', () => {
    expect(blocks.some((block) => block.file === 'README.md')).toBe(true);
    expect(blocks.filter((block) => block.file.startsWith('docs/')).length).toBeGreaterThan(3);
  });

  const compiled = blocks.filter((block) => block.notCompiled === undefined);
  it.each(compiled.map((block) => [`${block.file}:${block.line}`, block] as const))(
    '%s type-checks',
    (key, block) => {
      const problems = diagnostics.get(key) ?? [];
      const reason = ownedElsewhere(block);
      if (reason !== undefined) {
        if (problems.length > 0) {
          console.warn(`${key} does not compile (${reason}):\n${problems.join('\n')}`);
        }
        return;
      }
      expect(problems, `${key} (## ${block.heading})`).toEqual([]);
    },
  );
});
