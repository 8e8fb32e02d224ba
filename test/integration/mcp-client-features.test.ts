/**
 * Client features offered to servers — elicitation, sampling, roots — with
 * server-everything over stdio: given handlers advertise the capability (so
 * the server registers the tools that use it) and receive its requests;
 * without handlers nothing is advertised.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  McpIntegrationSection,
  Session,
  invokeTool,
  type ElicitationHandler,
  type RootsHandler,
  type SamplingHandler,
} from '../../src/index.js';
import { everythingStdio, toolNamed } from '../support/mcp-fixtures.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';

const FEATURE_TOOLS = ['get-roots-list', 'trigger-elicitation-request', 'trigger-sampling-request'];

describe('client features with server-everything over stdio', () => {
  let before: number[];
  const session = new Session();
  const elicitations: Parameters<ElicitationHandler>[] = [];
  const samplings: Parameters<SamplingHandler>[] = [];
  const rootsRequests: Parameters<RootsHandler>[] = [];
  let withHandlers: McpIntegrationSection;
  let without: McpIntegrationSection;

  beforeAll(async () => {
    before = childPids();
    withHandlers = new McpIntegrationSection({
      servers: [{ name: 'client', transport: everythingStdio() }],
      session,
      elicitation: (params, context) => {
        elicitations.push([params, context]);
        return { action: 'accept', content: { name: 'Ada Lovelace' } };
      },
      sampling: (params, context) => {
        samplings.push([params, context]);
        return {
          role: 'assistant',
          content: { type: 'text', text: 'sampled answer' },
          model: 'test-model',
        };
      },
      roots: (context) => {
        rootsRequests.push([context]);
        return [{ uri: 'file:///workspace/project', name: 'project' }];
      },
    });
    without = new McpIntegrationSection({
      key: 'mcp.plain',
      servers: [{ name: 'plain', transport: everythingStdio() }],
      session,
    });
    await Promise.all([withHandlers.connect(), without.connect()]);
  });

  afterAll(async () => {
    await Promise.all([withHandlers?.disconnect(), without?.disconnect()]);
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  it('with handlers, the server registers the tools that need them', () => {
    const names = withHandlers.tools().map((tool) => tool.name);
    for (const name of FEATURE_TOOLS) expect(names).toContain(`client_${name}`);
  });

  it('without handlers, nothing is advertised and those tools are absent', async () => {
    // The server registers them when the client's initialized notification arrives,
    // so a listing made now (after that notification) is the final answer.
    const listed = await without.routes[0]!.active.listTools();
    const original = listed.map((tool) => tool.name);
    expect(original).toContain('echo');
    for (const name of FEATURE_TOOLS) expect(original).not.toContain(name);
    expect(without.tools().map((tool) => tool.name)).not.toContain('plain_get-roots-list');
  });

  it('trigger-elicitation-request reaches the elicitation handler', async () => {
    const result = await invokeTool(
      toolNamed(withHandlers, 'client_trigger-elicitation-request'),
      {},
      { session },
    );
    expect(result.success, result.message).toBe(true);
    expect(elicitations).toHaveLength(1);
    const [params, context] = elicitations[0]!;
    expect(params.message).toBe('Please provide inputs for the following fields:');
    expect(context.serverName).toBe('client');
    expect(context.signal).toBeInstanceOf(AbortSignal);
    expect(result.message).toContain('User provided the requested information');
    expect(result.message).toContain('Ada Lovelace');
  });

  it('trigger-sampling-request reaches the sampling handler', async () => {
    const result = await invokeTool(
      toolNamed(withHandlers, 'client_trigger-sampling-request'),
      { prompt: 'what is MCP?', maxTokens: 50 },
      { session },
    );
    expect(result.success, result.message).toBe(true);
    expect(samplings).toHaveLength(1);
    const [params, context] = samplings[0]!;
    expect(params).toMatchObject({
      maxTokens: 50,
      systemPrompt: 'You are a helpful test server.',
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: 'Resource trigger-sampling-request context: what is MCP?',
          },
        },
      ],
    });
    expect(context.serverName).toBe('client');
    expect(result.message).toContain('LLM sampling result:');
    expect(result.message).toContain('sampled answer');
  });

  it('get-roots-list reaches the roots handler', async () => {
    const result = await invokeTool(
      toolNamed(withHandlers, 'client_get-roots-list'),
      {},
      { session },
    );
    expect(result.success, result.message).toBe(true);
    // server-everything asks for the roots once the session is initialized and answers
    // this tool from what it got then; under load that request can come before this
    // test starts, so the count is not compared to one taken here.
    expect(rootsRequests.length).toBeGreaterThan(0);
    expect(rootsRequests.at(-1)?.[0].serverName).toBe('client');
    expect(result.message).toContain('Current MCP Roots (1 total)');
    expect(result.message).toContain('file:///workspace/project');
  });
});
