import { SpanStatusCode, type HrTime } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { instrumentSession } from '../../src/ecosystem/telemetry.js';
import { WITHHELD_SERVER_TEXT } from '../../src/ecosystem/withhold-private.js';
import type { McpServerConfig } from '../../src/config/server-config.js';
import { McpIntegrationSection } from '../../src/mcp/section.js';
import { ToolInvoked } from '../../src/runtime/events.js';
import { Session } from '../../src/runtime/session.js';
import { invokeTool } from '../../src/tools/invoke-tool.js';
import { Tool } from '../../src/tools/tool.js';
import { ToolResult } from '../../src/tools/tool-result.js';
import { everythingServerPath } from '../support/everything.js';
import { rawToolServer, secretInToolName } from '../support/mcp-fixtures.js';
import { freePort } from '../support/ports.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';

const ENV_SECRET = 'env-secret-7f3a9c';
const HEADER_SECRET = 'header-secret-51b2d0';
const QUERY_SECRET = 'query-secret-c4e8a1';
const PASSWORD = 'hunter22-pw-9d1e';
const PIN = 'pin-0c7b55';
const API_KEY = 'sk-native-3e9f21';

/** Milliseconds since the epoch of an OpenTelemetry time. */
function milliseconds([seconds, nanos]: HrTime): number {
  return seconds * 1_000 + nanos / 1_000_000;
}

describe('instrumentSession', () => {
  const before = childPids();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const session = new Session();
  const login = rawToolServer([
    {
      name: 'login',
      description: 'Logs in',
      inputSchema: {
        type: 'object',
        properties: {
          user: { type: 'string' },
          password: { type: 'string' },
          pin: { type: 'string', 'x-secret': true },
        },
        required: ['user', 'password', 'pin'],
      },
      // A careless server that echoes the secret in its error.
      handler: (args) => ({
        isError: true,
        content: [
          {
            type: 'text',
            text: `login failed for ${String(args?.['user'])} with ${String(args?.['password'])}/${String(args?.['pin'])}`,
          },
        ],
      }),
    },
  ]);
  let servers: McpServerConfig[];
  let section: McpIntegrationSection;
  const native = Tool.create({
    name: 'fetch_report',
    description: 'Fetches a report',
    params: z.object({ report: z.string(), api_key: z.string() }),
    handler: ({ report }) => ToolResult.ok(`report ${report}`),
  });
  const invoked: ToolInvoked[] = [];
  let stop: () => void;

  beforeAll(async () => {
    const port = await freePort();
    servers = [
      {
        name: 'everything',
        transport: {
          type: 'stdio',
          command: process.execPath,
          args: [everythingServerPath, 'stdio'],
        },
        env: { SERVICE_TOKEN: ENV_SECRET },
      },
      { name: 'auth', transport: { type: 'in-memory', server: login.server } },
      {
        name: 'broken',
        transport: {
          type: 'streamable-http',
          url: `http://127.0.0.1:${port}/mcp?token=${QUERY_SECRET}`,
          headers: { Authorization: `Bearer ${HEADER_SECRET}` },
          sseFallback: false,
        },
      },
    ];
    section = new McpIntegrationSection({ servers, session, onConnectError: 'report' });
    stop = instrumentSession(session, {
      tracer: provider.getTracer('test'),
      tools: { tools: () => [...section.tools(), native] },
      servers,
    });
    session.bus.subscribe(ToolInvoked, (event) => invoked.push(event));
    await section.connect();
  });

  afterAll(async () => {
    stop();
    await section.disconnect();
    await provider.shutdown();
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  const spanNamed = (name: string): ReadableSpan => {
    const found = spans().filter((span) => span.name === name);
    expect(found, name).toHaveLength(1);
    return found[0]!;
  };

  it('records a span per tool call, timed by the ToolInvoked event', async () => {
    const tool = section.tools().find((candidate) => candidate.name === 'everything_echo')!;
    const result = await invokeTool(tool, { message: 'hi' }, { session });
    expect(result.success).toBe(true);
    const event = invoked.at(-1)!;
    const span = spanNamed('execute_tool everything_echo');
    expect(span.attributes).toMatchObject({
      'mcp.server': 'everything',
      'mcp.tool': 'everything_echo',
      'mcp.tool.original': 'echo',
      'tool.outcome': 'success',
      'tool.duration_ms': event.durationMs,
      'tool.source': 'mcp',
      'gen_ai.tool.call.id': event.callId,
      'session.id': session.sessionId,
      'tool.arguments': '{"message":"hi"}',
    });
    expect(milliseconds(span.startTime)).toBeCloseTo(event.createdAt.getTime(), 3);
    expect(milliseconds(span.endTime)).toBeCloseTo(event.createdAt.getTime() + event.durationMs, 3);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('marks a failed call as an error, without its secret arguments', async () => {
    const tool = section.tools().find((candidate) => candidate.name === 'auth_login')!;
    const result = await invokeTool(
      tool,
      { user: 'ada', password: PASSWORD, pin: PIN },
      { session },
    );
    expect(result.success).toBe(false);
    // The server echoed them: masked in the result (by name: password; by schema: x-secret)...
    expect(result.message).toBe('login failed for ada with ***/***');
    const span = spanNamed('execute_tool auth_login');
    expect(span.attributes['tool.outcome']).toBe('error');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    // ...and in the span.
    expect(span.status.message).toBe('login failed for ada with ***/***');
    expect(span.attributes['tool.arguments']).toBe('{"user":"ada","password":"***","pin":"***"}');
  });

  it('records native tools too, and bad arguments as errors', async () => {
    await invokeTool(native, { report: 'q3', api_key: API_KEY }, { session });
    await invokeTool(native, { report: 7, api_key: API_KEY }, { session });
    const [ok, bad] = spans().filter((span) => span.name === 'execute_tool fetch_report');
    expect(ok?.attributes).toMatchObject({ 'tool.source': 'native', 'tool.outcome': 'success' });
    expect(ok?.attributes).not.toHaveProperty('mcp.server');
    expect(bad?.attributes['tool.outcome']).toBe('error');
    expect(bad?.status.message).toContain('report:');
  });

  it('records connections and failed connections', () => {
    const connected = spans().filter((span) => span.name.startsWith('mcp.connect'));
    expect(connected.map((span) => span.name).sort()).toEqual(['mcp.connect broken']);
    const broken = spanNamed('mcp.connect broken');
    expect(broken.attributes).toMatchObject({
      'mcp.server': 'broken',
      'mcp.transport': 'streamable-http',
    });
    expect(broken.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('ends connection spans at disconnect and ignores other sessions and later events', async () => {
    const other = new Session({ bus: session.bus });
    await invokeTool(native, { report: 'other', api_key: API_KEY }, { session: other });
    await section.disconnect();
    const everything = spanNamed('mcp.connection everything');
    expect(everything.attributes).toMatchObject({
      'mcp.server': 'everything',
      'mcp.transport': 'stdio',
      'mcp.endpoint': 'normal',
      'mcp.disconnect.expected': true,
    });
    expect(spanNamed('mcp.connection auth').attributes['mcp.transport']).toBe('in-memory');
    const count = spans().length;
    stop();
    await invokeTool(native, { report: 'late', api_key: API_KEY }, { session });
    expect(spans()).toHaveLength(count);
    expect(JSON.stringify(spans().map((span) => span.attributes))).not.toContain('"other"');
  });

  it('never records an env value, header value, URL token or secret argument', () => {
    const everything = JSON.stringify(
      spans().map((span) => ({
        name: span.name,
        attributes: span.attributes,
        status: span.status,
        events: span.events,
        resource: span.resource.attributes,
      })),
    );
    // The positive control: arguments and reasons are there...
    expect(everything).toContain('"user\\":\\"ada');
    expect(everything).toContain('q3');
    // ...and the secrets are not.
    for (const secret of [ENV_SECRET, HEADER_SECRET, QUERY_SECRET, PASSWORD, PIN, API_KEY]) {
      expect(everything).not.toContain(secret);
    }
  });
});

describe('instrumentSession once the session holds private data', () => {
  const PRIVATE = 'SSN-078-05-1120';

  /** A server that marks its first answer private, then fails with the data, under a name made of it. */
  function leakyServer(): ReturnType<typeof rawToolServer> {
    return rawToolServer([
      {
        name: 'read_record',
        inputSchema: { type: 'object' },
        annotations: { openWorldHint: false },
        handler: () => ({
          content: [{ type: 'text', text: `record ${PRIVATE}` }],
          _meta: {
            'mcp-sections/private-data': { dataset: 'crm.people', sensitivity: 'confidential' },
          },
        }),
      },
      {
        name: `notes on ${PRIVATE}`,
        inputSchema: { type: 'object' },
        annotations: { openWorldHint: false },
        handler: () => ({
          isError: true,
          content: [{ type: 'text', text: `lookup failed near ${PRIVATE}` }],
        }),
      },
    ]);
  }

  async function spansOfRun(includePrivateText: boolean): Promise<ReadableSpan[]> {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const session = new Session();
    const servers: McpServerConfig[] = [
      { name: 'crm', transport: { type: 'in-memory', server: leakyServer().server } },
    ];
    await using section = new McpIntegrationSection({ servers, session });
    const stop = instrumentSession(session, {
      tracer: provider.getTracer('test'),
      tools: section,
      servers,
      includePrivateText,
    });
    await section.connect();
    const read = section.tools().find((tool) => tool.name === 'crm_read_record');
    const notes = section.tools().find((tool) => tool !== read);
    await invokeTool(read!, {}, { session });
    expect(session.privateData.hasPrivateData).toBe(true);
    const failed = await invokeTool(notes!, {}, { session });
    expect(failed.message).toContain(PRIVATE);
    stop();
    // Shutting the exporter down empties it.
    const spans = exporter.getFinishedSpans();
    await provider.shutdown();
    return spans;
  }

  it("leaves out a server's failure text and a tool's original name that is not an identifier", async () => {
    const spans = await spansOfRun(false);
    const failed = spans.find((span) => span.attributes['tool.outcome'] === 'error');
    expect(failed?.status.message).toBe(WITHHELD_SERVER_TEXT);
    expect(failed?.attributes['mcp.tool.original']).toBe(WITHHELD_SERVER_TEXT);
    expect(
      JSON.stringify(spans.map((span) => [span.name, span.attributes, span.status])),
    ).not.toContain(PRIVATE);
  });

  /** The span of one call of the one tool of `server`, its tool's bridged name, and the server's secret. */
  async function spanOfOneCall(server: McpServerConfig) {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const session = new Session();
    await using section = new McpIntegrationSection({ servers: [server], session });
    const stop = instrumentSession(session, { tracer: provider.getTracer('t'), servers: [server] });
    await section.connect();
    const bridged = section.tools()[0]!.name;
    await invokeTool(section.tools()[0]!, {}, { session });
    stop();
    const [span] = exporter.getFinishedSpans();
    await provider.shutdown();
    return { span, bridged };
  }

  it("masks a server's secret in a tool's original name, and cuts a long one", async () => {
    const secret = 'Key-7F3A-9C1E';
    const { span } = await spanOfOneCall(
      secretInToolName('crm', `use ${secret} ${'x'.repeat(10_000)}`, secret),
    );
    const original = String(span?.attributes['mcp.tool.original']);
    expect(original.startsWith('use *** xxx')).toBe(true);
    expect(original).not.toContain(secret);
    expect(original.length).toBeLessThan(4_200);
  });

  it("shows nothing of a server's secret in a tool's names: the span's, mcp.tool, gen_ai.tool.name, mcp.tool.original", async () => {
    // Lower-case letters and digits: it would fit in a bridged name unchanged.
    const secret = 'ghpz9xq7kl2mn4pr8st1uv';
    const { span, bridged } = await spanOfOneCall(secretInToolName('crm', `tok_${secret}`, secret));
    // Bridged from the masked name (tool-naming.ts).
    expect(bridged).toMatch(/^crm_tok_{5}[0-9a-f]{8}$/);
    expect(span?.name).toBe(`execute_tool ${bridged}`);
    expect(span?.attributes).toMatchObject({
      'gen_ai.tool.name': bridged,
      'mcp.tool': bridged,
      'mcp.tool.original': 'tok_***',
    });
    expect(JSON.stringify([span?.name, span?.attributes, span?.status])).not.toContain(secret);
  });

  it('keeps them when the application asks (includePrivateText)', async () => {
    const spans = await spansOfRun(true);
    const failed = spans.find((span) => span.attributes['tool.outcome'] === 'error');
    expect(failed?.status.message).toContain(PRIVATE);
    expect(failed?.attributes['mcp.tool.original']).toBe(`notes on ${PRIVATE}`);
  });
});
