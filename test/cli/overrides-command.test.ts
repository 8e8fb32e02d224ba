/**
 * `mcp-sections overrides seed` through the built executable: a template
 * module in, an overrides file out, which the library then applies.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/cli/exit-codes.js';
import { runCli } from '../../src/cli/run.js';
import {
  FilePromptOverridesStore,
  MarkdownSection,
  Prompt,
  PromptTemplate,
  contentHash,
} from '../../src/index.js';
import { tempDir, type TempDir } from '../support/mcp-fixtures.js';
import { builtMain, ensureBuilt, repo, runBuiltCli, type CliRun } from './helpers.js';
import { captureIo } from './mcp-host.js';

const fixtures = path.join(repo, 'test', 'fixtures', 'overrides');
const fixture = (name: string): string => path.join(fixtures, name);

/** Runs the built CLI under `node --import tsx`, as the docs say to for a .ts module. */
function runBuiltCliWithTsx(args: readonly string[]): Promise<CliRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', builtMain, ...args], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe('mcp-sections overrides seed', () => {
  let dir: TempDir;

  beforeAll(async () => {
    ensureBuilt();
    dir = await tempDir('overrides-cli');
  });
  afterAll(async () => {
    await dir[Symbol.asyncDispose]();
  });

  const out = (name: string): string => path.join(dir.path, name);

  it('writes the current bodies and descriptions with their hashes, which then apply', async () => {
    const run = await runBuiltCli(['overrides', 'seed', fixture('welcome.mjs'), '--dir', out('a')]);

    const file = out('a/demo/welcome/latest.json');
    expect(run.stderr).toBe(`wrote ${file}: 2 sections, 1 tool (tag latest)\n`);
    expect(run.code).toBe(EXIT_CODES.ok);
    const written = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(written).toEqual({
      version: 1,
      ns: 'demo',
      key: 'welcome',
      tag: 'latest',
      sections: {
        task: {
          expectedHash: contentHash('Help ${user} find papers.'),
          body: 'Help ${user} find papers.',
        },
        'task.style': {
          expectedHash: contentHash('Be brief.\nCite sources.'),
          body: 'Be brief.\nCite sources.',
        },
      },
      tools: {
        search: {
          expectedHash: contentHash('Searches the index'),
          description: 'Searches the index',
        },
      },
    });

    // Edited by hand, then read by the library: the edit renders.
    const sections = written.sections as Record<string, { body: string }>;
    sections['task.style']!.body = 'One sentence, no citations.';
    await writeFile(file, JSON.stringify(written));
    const template = PromptTemplate.create({
      ns: 'demo',
      key: 'welcome',
      sections: [
        new MarkdownSection({
          key: 'task',
          title: 'Task',
          template: 'Help someone find papers.',
          acceptsOverrides: true,
          children: [
            new MarkdownSection({
              key: 'style',
              title: 'Style',
              template: 'Be brief.\nCite sources.',
              acceptsOverrides: true,
            }),
          ],
        }),
      ],
    });
    const store = new FilePromptOverridesStore({ dir: out('a') });
    const text = (await Prompt.withOverrides(template, { store })).render().text;
    expect(text).toContain('### 1.1. Style (task.style)\n\nOne sentence, no citations.');
  });

  it('refuses to replace a file without --force, and replaces it with', async () => {
    const args = ['overrides', 'seed', fixture('welcome.mjs'), '--dir', out('b')];
    expect((await runBuiltCli(args)).code).toBe(EXIT_CODES.ok);
    const file = out('b/demo/welcome/latest.json');
    await writeFile(file, '{"edited": true}');

    const again = await runBuiltCli(args);
    expect(again.code).toBe(EXIT_CODES.usage);
    expect(again.stderr).toBe(`error: ${file} exists; pass --force to replace it\n`);
    expect(await readFile(file, 'utf8')).toBe('{"edited": true}');

    const forced = await runBuiltCli([...args, '--force']);
    expect(forced.code).toBe(EXIT_CODES.ok);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ version: 1, key: 'welcome' });
  });

  it('writes YAML under another tag, and reports one JSON document with --json', async () => {
    const run = await runBuiltCli([
      'overrides',
      'seed',
      fixture('welcome.mjs'),
      '--dir',
      out('c'),
      '--tag',
      'stable',
      '--format',
      'yaml',
      '--json',
    ]);
    expect(run.code).toBe(EXIT_CODES.ok);
    const file = out('c/demo/welcome/stable.yaml');
    expect(JSON.parse(run.stdout)).toEqual({
      file,
      ns: 'demo',
      key: 'welcome',
      tag: 'stable',
      sections: ['task', 'task.style'],
      tools: ['search'],
    });
    expect(await readFile(file, 'utf8')).toContain(
      'body: |-\n      Be brief.\n      Cite sources.',
    );
  });

  it('picks the export named, or says which templates there are', async () => {
    const module = fixture('two-templates.mjs');
    const ambiguous = await runBuiltCli(['overrides', 'seed', module, '--dir', out('d')]);
    expect(ambiguous.code).toBe(EXIT_CODES.config);
    expect(ambiguous.stderr).toBe(
      `error: ${module} exports 2 templates (first, second); name one with --export\n`,
    );

    const second = await runBuiltCli([
      'overrides',
      'seed',
      module,
      '--export',
      'second',
      '--dir',
      out('d'),
    ]);
    expect(second.code).toBe(EXIT_CODES.ok);
    expect(second.stderr).toBe(
      `wrote ${out('d/demo/second/latest.json')}: 1 section, 0 tools (tag latest)\n`,
    );

    const notOne = await runBuiltCli([
      'overrides',
      'seed',
      module,
      '--export',
      'notATemplate',
      '--dir',
      out('d'),
    ]);
    expect(notOne.code).toBe(EXIT_CODES.config);
    expect(notOne.stderr).toContain('export "notATemplate" of');
    expect(notOne.stderr).toContain('is not a PromptTemplate or a Prompt');

    const missing = await runBuiltCli([
      'overrides',
      'seed',
      module,
      '--export',
      'third',
      '--dir',
      out('d'),
    ]);
    expect(missing.stderr).toBe(
      `error: ${module} has no export "third"; its exports: first, notATemplate, second\n`,
    );
  });

  it('says why a module cannot be loaded', async () => {
    const throws = await runBuiltCli([
      'overrides',
      'seed',
      fixture('throws.mjs'),
      '--dir',
      out('e'),
    ]);
    expect(throws.code).toBe(EXIT_CODES.config);
    expect(throws.stderr).toBe(
      `error: cannot load ${fixture('throws.mjs')}: database unreachable\n`,
    );

    const absent = await runBuiltCli([
      'overrides',
      'seed',
      fixture('absent.mjs'),
      '--dir',
      out('e'),
    ]);
    expect(absent.code).toBe(EXIT_CODES.config);
    expect(absent.stderr).toBe(`error: cannot load ${fixture('absent.mjs')}: no such file\n`);
  });

  it('loads a TypeScript module under tsx, and says to use tsx without it', async () => {
    const module = fixture('welcome-ts.ts');
    const plain = await runBuiltCli(['overrides', 'seed', module, '--dir', out('f')]);
    expect(plain.code).toBe(EXIT_CODES.config);
    expect(plain.stderr).toContain(
      `cannot load ${module}: this Node cannot import .ts files by itself`,
    );
    expect(plain.stderr).toContain('node --import tsx');

    const withTsx = await runBuiltCliWithTsx(['overrides', 'seed', module, '--dir', out('f')]);
    expect(withTsx.stderr).toBe(
      `wrote ${out('f/demo/typed/latest.json')}: 1 section, 0 tools (tag latest)\n`,
    );
    expect(withTsx.code).toBe(EXIT_CODES.ok);
  });

  it('seeds the tools of MCP sections with --connect, and only their body without', async () => {
    const module = fixture('mcp.mjs');
    const unconnected = await runBuiltCli([
      'overrides',
      'seed',
      module,
      '--dir',
      out('g'),
      '--json',
    ]);
    expect(unconnected.code).toBe(EXIT_CODES.ok);
    expect(JSON.parse(unconnected.stdout)).toMatchObject({
      sections: ['mcp.integrations'],
      tools: [],
    });

    const connected = await runBuiltCli([
      'overrides',
      'seed',
      module,
      '--dir',
      out('g'),
      '--json',
      '--connect',
      '--force',
      '-q',
    ]);
    expect(connected.code).toBe(EXIT_CODES.ok);
    expect(JSON.parse(connected.stdout)).toMatchObject({ tools: ['wiki_search'] });
    const written = JSON.parse(await readFile(out('g/agent/main/latest.json'), 'utf8')) as {
      tools: Record<string, unknown>;
    };
    expect(written.tools.wiki_search).toEqual({
      expectedHash: contentHash('Searches the wiki'),
      description: 'Searches the wiki',
    });
  });
});

describe('overrides seed command line', () => {
  it.each([
    [['overrides'], 'unknown overrides command ""; expected seed'],
    [['overrides', 'apply', 'x.mjs'], 'unknown overrides command "apply"; expected seed'],
    [['overrides', 'seed', '--dir', 'd'], 'overrides seed takes one module'],
    [['overrides', 'seed', 'x.mjs'], 'overrides seed needs --dir <directory>'],
    [
      ['overrides', 'seed', 'x.mjs', '--dir', 'd', '-o', 'f'],
      '-o/--output does not apply to overrides',
    ],
    [['inspect', 'x.json', '--dir', 'd'], '--dir does not apply to inspect'],
    [['call', 'x.json', 'tool', '--force'], '--force does not apply to call'],
  ])('refuses %j with exit 2', async (argv, message) => {
    const io = captureIo();
    expect(await runCli(argv, io)).toBe(EXIT_CODES.usage);
    expect(io.err()).toContain(message);
    expect(io.out()).toBe('');
  });

  it.each([
    [['--tag', '../up'], '--tag "../up" must match ^[a-z0-9][a-z0-9._-]{0,63}$'],
    [['--format', 'toml'], '--format must be json or yaml, received "toml"'],
  ])('refuses %j with exit 2 before writing anything', async (extra, message) => {
    await using dir = await tempDir('overrides-cli-usage');
    const io = captureIo();
    const argv = ['overrides', 'seed', fixture('welcome.mjs'), '--dir', dir.path, ...extra];
    expect(await runCli(argv, io)).toBe(EXIT_CODES.usage);
    expect(io.err()).toContain(message);
    expect(
      await readFile(path.join(dir.path, 'demo', 'welcome', 'latest.json'), 'utf8').catch(
        () => 'none',
      ),
    ).toBe('none');
  });
});
