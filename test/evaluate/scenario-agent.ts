/**
 * The agent the evaluate scenarios run: a native `add_note` tool that
 * writes a session slice, and an in-process MCP server `crm` with a
 * closed-world `lookup`, a `load_customer` that marks its result as
 * private data, and an open-world `post_webhook` that the ratchet refuses
 * after that.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import {
  MarkdownSection,
  McpIntegrationSection,
  PRIVATE_DATA_META_KEY,
  Prompt,
  PromptTemplate,
  Session,
  Tool,
  ToolResult,
} from '../../src/index.js';
import { recordEvents, type EventRecorder } from '../support/mcp-fixtures.js';

/** The `crm` MCP server, and the calls that reached it. */
function crmServer(): { readonly server: McpServer; readonly calls: string[] } {
  const server = new McpServer({ name: 'crm', version: '1.0.0' });
  const calls: string[] = [];
  server.registerTool(
    'lookup',
    {
      description: 'Finds a customer by id',
      inputSchema: { id: z.string() },
      annotations: { openWorldHint: false },
    },
    ({ id }) => {
      calls.push('lookup');
      return { content: [{ type: 'text', text: `customer ${id}: Ada` }] };
    },
  );
  server.registerTool(
    'load_customer',
    {
      description: "Loads a customer's record",
      inputSchema: { id: z.string() },
      annotations: { openWorldHint: false },
    },
    ({ id }) => {
      calls.push('load_customer');
      return {
        content: [{ type: 'text', text: `record ${id}: Ada, born 1815` }],
        _meta: { [PRIVATE_DATA_META_KEY]: { dataset: 'customers', sensitivity: 'confidential' } },
      };
    },
  );
  server.registerTool(
    'post_webhook',
    { description: 'Posts a message to a URL', inputSchema: { url: z.string(), text: z.string() } },
    () => {
      calls.push('post_webhook');
      return { content: [{ type: 'text', text: 'posted' }] };
    },
  );
  return { server, calls };
}

interface Notes {
  readonly items: readonly string[];
}

/** The agent under test, with its session, events and what its tools saw. */
export interface Agent {
  readonly session: Session;
  readonly prompt: Prompt<unknown>;
  readonly events: EventRecorder;
  readonly crmCalls: readonly string[];
  notes(): readonly string[];
  /** The most `add_note` calls that ran at once. */
  maxInFlight(): number;
}

const sections: McpIntegrationSection[] = [];

/** Disconnects every agent's MCP section. */
export async function disconnectAgents(): Promise<void> {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
}

/** Builds the agent; its MCP section is disconnected after the test. */
export async function agent(output?: z.ZodType): Promise<Agent> {
  const session = new Session();
  const crm = crmServer();
  const mcp = new McpIntegrationSection({
    session,
    servers: [{ name: 'crm', transport: { type: 'in-memory', server: crm.server } }],
  });
  sections.push(mcp);
  await mcp.connect();
  const notes = session.slice<Notes>('notes', { initial: { items: [] } });
  let inFlight = 0;
  let maxInFlight = 0;
  const addNote = Tool.create({
    name: 'add_note',
    description: 'Adds a note to the customer file',
    params: z.object({ text: z.string(), outcome: z.enum(['ok', 'error', 'fatal']).optional() }),
    handler: async ({ text, outcome }, { session: own }) => {
      own.slice<Notes>('notes').update((draft) => {
        draft.items.push(text);
      });
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // Yield to the event loop: calls that run together are all in flight here.
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
      if (outcome === 'error') return ToolResult.error(`could not save "${text}"`);
      if (outcome === 'fatal') return ToolResult.error('[FATAL] the notes disk is gone');
      return ToolResult.ok(null, `noted "${text}"`);
    },
  });
  const template = PromptTemplate.create({
    ns: 'test',
    key: 'evaluate',
    sections: [
      new MarkdownSection({
        key: 'task',
        title: 'Task',
        template: 'Help the customer.',
        tools: [addNote],
      }),
      mcp,
    ],
    ...(output === undefined ? {} : { output }),
  });
  return {
    session,
    prompt: new Prompt(template),
    events: recordEvents(session),
    crmCalls: crm.calls,
    notes: () => notes.get().items,
    maxInFlight: () => maxInFlight,
  };
}
