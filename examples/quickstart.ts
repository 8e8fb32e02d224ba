/**
 * The main demo: `npm run demo`.
 *
 * Starts the reference MCP server `@modelcontextprotocol/server-everything`
 * over stdio from node_modules, builds a prompt with a markdown section and
 * an MCP section, prints the prompt with its tool inventory, then invokes two
 * tools — one succeeds, one is refused by validation before it reaches the
 * server — printing each `ToolInvoked` event as it arrives.
 *
 * `npm run demo -- --trace demo.jsonl` also records the run for the viewer:
 * `npm run debug -- demo.jsonl` (`npx mcp-sections debug demo.jsonl` where the
 * package is installed).
 */
import { z } from 'zod';
import {
  MarkdownSection,
  McpIntegrationSection,
  Prompt,
  PromptTemplate,
  Session,
  ToolInvoked,
  TraceRecorder,
  invokeTool,
} from '../src/index.js';
import { referenceServerScript } from './reference-servers.js';

const traceAt = process.argv.indexOf('--trace');
const tracePath = traceAt === -1 ? undefined : process.argv[traceAt + 1];
if (traceAt !== -1 && (tracePath === undefined || tracePath.startsWith('-')))
  throw new Error('--trace needs a file name, e.g. npm run demo -- --trace demo.jsonl');

const session = new Session();
session.bus.subscribe(ToolInvoked, (event) => {
  const outcome = event.result.success ? 'ok' : 'error';
  console.log(
    `\n[event] ToolInvoked ${event.toolName} (${event.source}, server ${event.mcpServer ?? '-'}, wire name ${event.originalName ?? '-'}): ${outcome} in ${event.durationMs.toFixed(1)} ms`,
  );
  console.log(`        ${event.result.message}`);
});

await using mcp = new McpIntegrationSection({
  servers: [
    {
      name: 'everything',
      transport: {
        type: 'stdio',
        command: process.execPath,
        args: [referenceServerScript('@modelcontextprotocol/server-everything'), 'stdio'],
      },
      enabledTools: ['echo', 'get-sum', 'get-tiny-image'],
    },
  ],
  session,
});
// Records every event of the session, secrets masked; `close()` below writes it out.
await using trace =
  tracePath === undefined
    ? undefined
    : new TraceRecorder(session, { path: tracePath, servers: mcp.servers, tools: mcp });
await mcp.connect();

const Task = z.object({ task: z.string() });
const template = PromptTemplate.create({
  ns: 'demo',
  key: 'quickstart',
  sections: [
    new MarkdownSection({
      key: 'instructions',
      title: 'Instructions',
      params: Task,
      template: `
        You are a careful assistant. Your task: \${task}
        Use the external tools below when they help.
      `,
    }),
    mcp,
  ],
});

const rendered = new Prompt(template)
  .bind(Task, { task: 'add two numbers and echo the result' })
  .render({ session });
console.log('=== Rendered prompt ===\n');
console.log(rendered.text);
console.log('\n=== Tool definitions sent to the model ===\n');
for (const definition of rendered.toolDefinitions()) {
  console.log(`${definition.name}: ${JSON.stringify(definition.inputSchema)}`);
}

const byName = new Map(rendered.tools.map((tool) => [tool.name, tool]));
const echo = byName.get('everything_echo');
const sum = byName.get('everything_get-sum');
if (echo === undefined || sum === undefined)
  throw new Error('server-everything did not list echo and get-sum');

console.log('\n=== Calling everything_echo (valid arguments) ===');
const ok = await invokeTool(echo, { message: 'hello from mcp-sections' }, { session });
console.log(`result: success=${ok.success} message=${JSON.stringify(ok.message)}`);

console.log(
  '\n=== Calling everything_get-sum with a string for "a" (refused before the server) ===',
);
const refused = await invokeTool(sum, { a: 'one', b: 2 }, { session });
console.log(`result: success=${refused.success} message=${JSON.stringify(refused.message)}`);

if (trace !== undefined) {
  await trace.close();
  console.log(`\nTrace written to ${trace.path}; see it with: npm run debug -- ${tracePath}`);
}
