/**
 * An agent run end to end with `evaluate()`: `npm run example:agent`.
 *
 * Two reference MCP servers over stdio, started from node_modules:
 * server-filesystem (confined to a fresh workspace) and server-everything.
 * The agent lists the workspace and reads `todo.md` in one turn, writes
 * `summary.md` and adds two numbers in the next, then answers with JSON
 * that the template's output schema checks.
 *
 * With no API key it runs against a scripted model (./scripted-model.ts):
 * no network, and CI runs it. With `OPENAI_API_KEY` (OpenAI Responses API,
 * `OPENAI_MODEL`, default gpt-4.1) or `ANTHROPIC_API_KEY` (`ANTHROPIC_MODEL`,
 * default claude-sonnet-4-5) set, the same prompt runs against that model.
 */
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import {
  MarkdownSection,
  McpIntegrationSection,
  Prompt,
  PromptExecuted,
  PromptTemplate,
  Session,
  ToolInvoked,
  anthropic,
  evaluate,
  openaiResponses,
  type ModelAdapter,
} from '../src/index.js';
import { referenceServerScript } from './reference-servers.js';
import { scriptedModel, type StepReply, type StepResults } from './scripted-model.js';

const Report = z.object({
  files: z.array(z.string()).describe('the files in the workspace at the end'),
  items: z.number().describe('how many todo items there are'),
  total: z.number().describe('items plus files, as everything_get-sum computed it'),
});

const Task = z.object({ workspace: z.string() });

const log = (line: string): void => console.log(line);
const workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'mcp-sections-agent-')));
try {
  await writeFile(path.join(workspace, 'todo.md'), '- buy milk\n- call Ada\n- fix the roof\n');

  const session = new Session();
  session.bus.subscribe(ToolInvoked, (event) => {
    const firstLine = event.result.message.split('\n')[0] ?? '';
    log(`[tool]  ${event.toolName}: ${event.result.success ? 'ok' : 'error'} — ${firstLine}`);
  });
  session.bus.subscribe(PromptExecuted, (event) => {
    log(
      `[done]  ${event.turns} turns, ${event.toolCalls} tool calls, ${event.usage.totalTokens} tokens (${event.adapter})`,
    );
  });

  await using mcp = new McpIntegrationSection({
    session,
    servers: [
      {
        name: 'fs',
        transport: {
          type: 'stdio',
          command: process.execPath,
          args: [referenceServerScript('@modelcontextprotocol/server-filesystem'), workspace],
        },
        enabledTools: ['list_directory', 'read_text_file', 'write_file'],
      },
      {
        name: 'everything',
        transport: {
          type: 'stdio',
          command: process.execPath,
          args: [referenceServerScript('@modelcontextprotocol/server-everything'), 'stdio'],
        },
        enabledTools: ['get-sum'],
      },
    ],
  });
  await mcp.connect();

  const template = PromptTemplate.create({
    ns: 'examples',
    key: 'agent',
    sections: [
      new MarkdownSection({
        key: 'task',
        title: 'Task',
        params: Task,
        template: `
          Work in the directory \${workspace}. Do these steps, calling independent tools in the same turn:
          1. List the directory and read todo.md.
          2. Write summary.md with one line "* <item>" per todo item, and add the number of
             todo items and the number of files with everything_get-sum.
          3. Answer with JSON: the files in the directory now, the number of items, and the sum.
        `,
      }),
      mcp,
    ],
    output: Report,
  });
  const prompt = new Prompt(template).bind(Task, { workspace });

  const result = await evaluate(prompt, {
    adapter: await chooseModel(workspace),
    session,
    maxTurns: 8,
    deadline: new Date(Date.now() + 120_000),
  });

  log(`[answer] ${JSON.stringify(result.output)}`);
  log(`[file]  summary.md:\n${await readFile(path.join(workspace, 'summary.md'), 'utf8')}`);
} finally {
  await rm(workspace, { recursive: true, force: true });
}

/** The real model when a key is set; the script otherwise. */
async function chooseModel(dir: string): Promise<ModelAdapter<unknown>> {
  if (process.env['OPENAI_API_KEY'] !== undefined) {
    const { default: OpenAI } = await import('openai');
    log('[model] OpenAI Responses API');
    return openaiResponses(new OpenAI(), process.env['OPENAI_MODEL'] ?? 'gpt-4.1');
  }
  if (process.env['ANTHROPIC_API_KEY'] !== undefined) {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    log('[model] Anthropic Messages');
    return anthropic(new Anthropic(), process.env['ANTHROPIC_MODEL'] ?? 'claude-sonnet-4-5');
  }
  log('[model] scripted (set OPENAI_API_KEY or ANTHROPIC_API_KEY for a real one)');
  return scriptedModel(script(dir), log);
}

/** What a model would do, step by step, reading each turn's results. */
function script(dir: string): ((results: StepResults) => StepReply)[] {
  let files: string[] = [];
  let items: string[] = [];
  return [
    () => ({
      calls: [
        { name: 'fs_list_directory', input: { path: dir } },
        { name: 'fs_read_text_file', input: { path: path.join(dir, 'todo.md') } },
      ],
    }),
    (results) => {
      files = lines(results, 'fs_list_directory').map((line) => line.replace(/^\[FILE\] /, ''));
      items = lines(results, 'fs_read_text_file').map((line) => line.replace(/^- /, ''));
      return {
        calls: [
          {
            name: 'fs_write_file',
            input: {
              path: path.join(dir, 'summary.md'),
              content: items.map((item) => `* ${item}\n`).join(''),
            },
          },
          { name: 'everything_get-sum', input: { a: items.length, b: files.length } },
        ],
      };
    },
    (results) => {
      const sum = /is (\d+)/.exec(results.get('everything_get-sum')?.text ?? '')?.[1];
      return {
        answer: JSON.stringify({
          files: [...files, 'summary.md'].sort(),
          items: items.length,
          total: Number(sum),
        }),
      };
    },
  ];
}

function lines(results: StepResults, tool: string): string[] {
  const result = results.get(tool);
  if (result?.ok !== true)
    throw new Error(`${tool} did not succeed: ${result?.text ?? 'not called'}`);
  return result.text.split('\n').filter((line) => line.trim() !== '');
}
