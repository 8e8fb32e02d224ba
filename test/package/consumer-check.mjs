// The package as a user gets it: `npm pack`, installed into a new project
// that has none of the optional peers (`ai`, `ioredis`, `openai`,
// `@anthropic-ai/sdk`), type-checked with `skipLibCheck: false`, and the
// README's example compiled and run (against server-filesystem, installed
// in that project), and `evaluate` run with a client of just the shape
// `openaiChat` calls (no `openai` installed). Run by .ci/run after
// `npm test`: `npm run check:package`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import console from 'node:console';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const rootManifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const OPTIONAL_PEERS = ['ai', 'ioredis', 'openai', '@anthropic-ai/sdk', '@langchain/core'];

/** Runs a command, echoing it; throws with its output when it fails. */
function run(command, args, cwd) {
  console.log(`$ ${command} ${args.join(' ')}`);
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    throw new Error(
      `${command} ${args.join(' ')} failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`,
    );
  }
}

/**
 * The first ```ts block of the README, read from README.md now (never a
 * copy) and run unchanged: the example a new user copies. Later blocks
 * (the model loop) need an SDK and a key; test/docs type-checks them.
 */
function readmeExample() {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const match = /^```ts\n([\s\S]*?)^```$/m.exec(readme);
  if (match === null) throw new Error('README.md has no ```ts example');
  const line = readme.slice(0, match.index).split('\n').length;
  console.log(`README.md:${line}: the quickstart, as written`);
  return match[1];
}

/** `evaluate` with `openaiChat` and a client of just the method it calls: no `openai` package. */
const EVALUATE_EXAMPLE = `
import { z } from 'zod';
import {
  MarkdownSection, Prompt, PromptTemplate, Session, Tool, ToolResult, evaluate, openaiChat,
  type OpenAIChatClient, type OpenAIChatCompletion,
} from 'mcp-sections';

const add = Tool.create({
  name: 'add', description: 'Adds a and b', params: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => ToolResult.ok(a + b),
});
const template = PromptTemplate.create({
  ns: 'consumer', key: 'evaluate', output: z.object({ sum: z.number() }),
  sections: [new MarkdownSection({ key: 'task', title: 'Task', template: 'Add 2 and 3.', tools: [add] })],
});
const replies: OpenAIChatCompletion[] = [
  { choices: [{ message: { content: null, tool_calls: [
    { id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } },
  ] } }] },
  { choices: [{ message: { content: '{"sum":5}' } }] },
];
const client: OpenAIChatClient = {
  chat: { completions: { create: () => Promise.resolve(replies.shift()!) } },
};
const result = await evaluate(new Prompt(template), { adapter: openaiChat(client, 'gpt-4.1'), session: new Session() });
console.log(\`evaluate: \${JSON.stringify(result.output)} in \${result.turns} turns\`);
`;

const work = mkdtempSync(path.join(tmpdir(), 'mcp-sections-consumer-'));
try {
  const tarball = run('npm', ['pack', '--silent', '--pack-destination', work], root)
    .trim()
    .split('\n')
    .at(-1);
  const project = path.join(work, 'project');
  const dev = rootManifest.devDependencies;
  run('mkdir', ['-p', project], work);
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify(
      {
        name: 'consumer',
        private: true,
        type: 'module',
        dependencies: {
          'mcp-sections': `file:../${tarball}`,
          zod: rootManifest.dependencies.zod,
          '@modelcontextprotocol/server-filesystem': dev['@modelcontextprotocol/server-filesystem'],
        },
        devDependencies: { typescript: dev.typescript, '@types/node': dev['@types/node'] },
      },
      null,
      2,
    ),
  );
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          // DOM: the MCP SDK's own declarations use `HeadersInit` (sdk/shared/transport.d.ts).
          lib: ['ES2023', 'ESNext.Disposable', 'DOM'],
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          skipLibCheck: false,
          types: ['node'],
          outDir: 'out',
        },
        include: ['example.ts', 'evaluate.ts'],
      },
      null,
      2,
    ),
  );
  writeFileSync(path.join(project, 'example.ts'), readmeExample());
  writeFileSync(path.join(project, 'evaluate.ts'), EVALUATE_EXAMPLE);
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], project);
  const present = OPTIONAL_PEERS.filter((name) =>
    existsSync(path.join(project, 'node_modules', name)),
  );
  if (present.length > 0) throw new Error(`optional peers were installed: ${present.join(', ')}`);
  run(path.join(project, 'node_modules', '.bin', 'tsc'), ['-p', '.'], project);
  const output = run(process.execPath, ['out/example.js'], project);
  for (const line of output.split('\n').filter((text) => text.includes('fs_list_directory'))) {
    console.log(`  ${line}`);
  }
  if (!/fs_list_directory true/.test(output) || /refused:/.test(output)) {
    throw new Error('the README example did not list /tmp through the bridged tool');
  }
  const evaluated = run(process.execPath, ['out/evaluate.js'], project);
  console.log(`  ${evaluated.trim()}`);
  if (evaluated.trim() !== 'evaluate: {"sum":5} in 2 turns') {
    throw new Error('evaluate did not run the tool call and parse the answer');
  }
  console.log(
    'consumer check passed: the packed library type-checks without optional peers, runs the README example and evaluates a prompt',
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
