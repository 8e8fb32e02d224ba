/**
 * A real agent run, recorded: server-everything over stdio (with a secret in
 * its environment), a second copy of it with a short timeout, an HTTP server
 * that cannot be reached (with a bearer token and a URL key), and a native
 * tool that writes a slice. The calls cover every outcome the viewer shows:
 * successes, a refusal by validation, a rolled-back call, a timeout, an
 * escalation to `confidential` and a call blocked because of it.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  MarkdownSection,
  McpIntegrationSection,
  Prompt,
  PromptTemplate,
  Session,
  Tool,
  ToolResult,
  invokeTool,
  type McpServerConfig,
  type RenderedPrompt,
} from '../../src/index.js';
import { TraceRecorder } from '../../src/trace/trace-recorder.js';
import { everythingServerPath } from '../support/everything.js';
import { freePort, LOOPBACK_HOST } from '../support/ports.js';

/** What a recorded run leaves for the tests to check. */
export interface RecordedRun {
  readonly path: string;
  readonly sessionId: string;
  /** Values that must appear nowhere in the trace or the viewer. */
  readonly secrets: readonly string[];
  /** The calls made, in order, with the outcome the viewer must show. */
  readonly calls: readonly { readonly tool: string; readonly outcome: string }[];
}

/** Records the run into `path` and resolves once the trace is closed and every server stopped. */
export async function recordRealRun(path: string): Promise<RecordedRun> {
  const envSecret = `env-secret-${randomUUID()}`;
  const headerSecret = `bearer-secret-${randomUUID()}`;
  const urlSecret = `url-secret-${randomUUID()}`;
  const closedPort = await freePort();
  const servers: McpServerConfig[] = [
    {
      name: 'everything',
      transport: {
        type: 'stdio',
        command: process.execPath,
        args: [everythingServerPath, 'stdio'],
      },
      env: { TRACE_TEST_TOKEN: envSecret },
      enabledTools: ['echo', 'get-sum', 'get-env', 'get-tiny-image'],
      sensitiveTools: { 'get-tiny-image': 'confidential' },
      permissions: { echo: ['connect'] },
    },
    {
      name: 'slow',
      transport: {
        type: 'stdio',
        command: process.execPath,
        args: [everythingServerPath, 'stdio'],
      },
      enabledTools: ['trigger-long-running-operation'],
      timeoutMs: 300,
    },
    {
      name: 'remote',
      transport: {
        type: 'streamable-http',
        url: `http://${LOOPBACK_HOST}:${closedPort}/mcp?key=${urlSecret}`,
        headers: { Authorization: `Bearer ${headerSecret}` },
      },
    },
  ];
  const session = new Session();
  const notes = session.slice('notes', { initial: { entries: [] as string[] } });
  const note = Tool.create({
    name: 'note',
    description: 'Keeps a note in the session; a note that says "fail" is written, then fails.',
    params: z.object({ text: z.string() }),
    handler: ({ text }) => {
      notes.update((draft) => {
        draft.entries.push(text);
      });
      return text.includes('fail')
        ? ToolResult.error(`cannot keep "${text}"`)
        : ToolResult.ok(null);
    },
  });
  await using section = new McpIntegrationSection({ servers, session, onConnectError: 'report' });
  const Task = z.object({ task: z.string() });
  const template = PromptTemplate.create({
    ns: 'trace',
    key: 'run',
    sections: [
      new MarkdownSection({
        key: 'task',
        title: 'Task',
        params: Task,
        template: 'Do this: ${task}',
        tools: [note],
      }),
      section,
    ],
  });
  let rendered: RenderedPrompt | undefined;
  const trace = new TraceRecorder(session, {
    path,
    servers,
    tools: { tools: () => [note, ...section.tools()] },
  });
  const calls: { tool: string; outcome: string }[] = [];
  try {
    await section.connect();
    const render = (task: string): RenderedPrompt => {
      rendered = new Prompt(template).bind(Task, { task }).render({ session });
      return rendered;
    };
    const call = async (name: string, args: unknown, outcome: string): Promise<void> => {
      const tool = rendered?.tools.find((candidate) => candidate.name === name);
      if (tool === undefined) throw new Error(`no tool ${name} in the prompt`);
      await invokeTool(tool, args, { session });
      calls.push({ tool: name, outcome });
    };
    render('add two numbers');
    await call('everything_echo', { message: 'hello' }, 'success');
    await call('everything_get-sum', { a: 1, b: 2 }, 'success');
    await call('everything_get-sum', { a: 'one', b: 2 }, 'refused');
    await call('everything_get-env', {}, 'success');
    await call('everything_echo', { message: `the token is ${envSecret}` }, 'success');
    await call('note', { text: 'fail now' }, 'rolled-back');
    await call('note', { text: 'kept' }, 'success');
    await call('slow_trigger-long-running-operation', { duration: 5, steps: 5 }, 'timed-out');
    render('describe the image');
    await call('everything_get-tiny-image', {}, 'success');
    // Rendered while the session holds private data: the trace keeps no text of it.
    render('report back');
    await call('everything_echo', { message: 'send it out' }, 'refused');
    await call('everything_get-sum', { a: 2, b: 3 }, 'success');
  } finally {
    await section.disconnect();
    await trace.close();
  }
  return {
    path: trace.path,
    sessionId: session.sessionId,
    secrets: [envSecret, headerSecret, urlSecret],
    calls,
  };
}
