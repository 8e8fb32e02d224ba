/**
 * A server that holds private data after the session escalated, sending it
 * back through every text the trace would otherwise keep: an `isError`
 * answer, a malformed marker, a dataset name, a log's logger, and after
 * `tools/list_changed` a tool description, a tool named with a sentence
 * and a schema whose refusals quote it. None of it may reach a trace, a
 * masked event stream or the live viewer.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  McpIntegrationSection,
  Prompt,
  PromptTemplate,
  Session,
  TraceRecorder,
  invokeTool,
  readTrace,
  type McpServerConfig,
  type TraceEventRecord,
} from '../../src/index.js';
import { toJsonCopy } from '../../src/core/json-copy.js';
import { traceEventMask } from '../../src/trace/trace-event-mask.js';
import { RemoteTrace } from '../../src/trace/viewer/remote-trace.js';
import { WITHHELD_SERVER_TEXT } from '../../src/ecosystem/withhold-private.js';
import { toolNamed } from '../support/mcp-fixtures.js';

const PRIVATE = 'SSN-078-05-1120';
const MARKER = 'mcp-sections/private-data';

/** A server that answers each tool by leaking {@link PRIVATE} another way once it has read it. */
function leakyServer(): Server {
  let leaked = false;
  const server = new Server(
    { name: 'crm', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true }, logging: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      ...['read_record', 'err', 'bad_marker', 'raise', 'log'].map((name) => ({
        name,
        description: leaked ? `reads; last ${PRIVATE}` : 'reads',
        inputSchema: { type: 'object' as const },
        annotations: { openWorldHint: false },
      })),
      ...(leaked
        ? [
            {
              name: `notes on ${PRIVATE}, who was born in 1970`,
              inputSchema: { type: 'object' as const },
              annotations: { openWorldHint: false },
            },
            {
              name: 'pick',
              inputSchema: {
                type: 'object' as const,
                properties: { mode: { enum: [PRIVATE] }, id: { pattern: `^${PRIVATE}$` } },
              },
              annotations: { openWorldHint: false },
            },
          ]
        : []),
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    switch (request.params.name) {
      case 'read_record':
        leaked = true;
        await server.sendToolListChanged();
        return {
          content: [{ type: 'text', text: `record ${PRIVATE}` }],
          _meta: { [MARKER]: { dataset: 'crm.people', sensitivity: 'confidential' } },
        };
      case 'err':
        return {
          isError: true,
          content: [{ type: 'text', text: `lookup failed near ${PRIVATE}` }],
        };
      case 'bad_marker':
        return { content: [{ type: 'text', text: 'ok' }], _meta: { [MARKER]: `${PRIVATE}` } };
      case 'raise':
        return {
          content: [{ type: 'text', text: 'ok' }],
          _meta: { [MARKER]: { dataset: `${PRIVATE}`, sensitivity: 'secret' } },
        };
      default:
        await server.sendLoggingMessage({ level: 'warning', logger: PRIVATE, data: 'x' });
        return { content: [{ type: 'text', text: 'ok' }] };
    }
  });
  return server;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'private-server-text-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a server's text once the session holds private data", () => {
  it('reaches neither a trace, nor a masked event stream, nor the live viewer', async () => {
    const servers: McpServerConfig[] = [
      { name: 'crm', transport: { type: 'in-memory', server: leakyServer() } },
    ];
    const session = new Session();
    await using section = new McpIntegrationSection({ servers, session, serverLogLevel: 'debug' });
    await section.connect();
    const file = path.join(dir, 'run.jsonl');
    const trace = new TraceRecorder(session, { path: file, servers, tools: section });
    const mask = traceEventMask({ servers });
    // The live viewer, following a stream masked as a trace, and one mirrored whole.
    const remote = new RemoteTrace({ sessionId: session.sessionId, servers });
    const remoteWhole = new RemoteTrace({ sessionId: session.sessionId, servers });
    const streamed: string[] = [];
    const types: string[] = [];
    session.bus.subscribeAll((event) => {
      const entry = mask(event, { hasPrivateData: session.privateData.hasPrivateData });
      streamed.push(entry.data);
      types.push(entry.type);
      const fields = JSON.parse(entry.data) as Record<string, unknown>;
      const id = `${streamed.length}-0`;
      remote.add({ id, sessionId: session.sessionId, type: entry.type, fields });
      const whole = JSON.parse(JSON.stringify(toJsonCopy(event))) as Record<string, unknown>;
      remoteWhole.add({ id, sessionId: session.sessionId, type: entry.type, fields: whole });
    });
    const template = PromptTemplate.create({ ns: 't', key: 'p', sections: [section] });
    new Prompt(template).render({ session });
    for (const name of ['read_record', 'err', 'bad_marker', 'raise', 'log']) {
      await invokeTool(toolNamed(section, `crm_${name}`), {}, { session });
    }
    // The re-listed tools, with the data in their descriptions, and the log notification.
    await expect.poll(() => section.tools()[0]?.description).toContain(PRIVATE);
    await expect.poll(() => types.includes('McpServerLog')).toBe(true);
    // Refused arguments of a schema the server listed with the data in it.
    const pick = toolNamed(section, 'crm_pick');
    const refused = await invokeTool(pick, { mode: 'other', id: 'x' }, { session });
    expect(refused.message).toContain(PRIVATE);
    new Prompt(template).render({ session });
    await trace.close();

    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(PRIVATE);
    expect(streamed.join('\n')).not.toContain(PRIVATE);
    expect(JSON.stringify(remote.current().records)).not.toContain(PRIVATE);
    expect(JSON.stringify(remoteWhole.current().records)).not.toContain(PRIVATE);

    // What stays: who failed and how, the levels, the tool names.
    const records = (await readTrace(file)).records;
    const failed = records.find(
      (record): record is TraceEventRecord =>
        record.kind === 'event' &&
        record.type === 'ToolInvoked' &&
        record.fields['toolName'] === 'crm_err',
    );
    expect(failed?.fields['result']).toEqual({
      success: false,
      message: WITHHELD_SERVER_TEXT,
      withheld: 'private-data',
    });
    // The tools offered after the escalation: names, no descriptions.
    const tools = records.filter((record) => record.kind === 'tools');
    expect(tools.map((record) => record.withheld)).toEqual([undefined, 'private-data']);
    expect(tools[1]?.tools.map((tool) => [tool.name, tool.description])).toContainEqual([
      'crm_err',
      undefined,
    ]);
    expect(session.privateData.sensitivity).toBe('secret');
  });
});
