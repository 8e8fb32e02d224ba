/**
 * The custom adapter of examples/custom-adapter.ts against a stand-in for
 * Ollama's `/api/chat` on 127.0.0.1: real HTTP, the request and reply
 * shapes of Ollama's API.
 */
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ollama } from '../../examples/custom-adapter.js';
import {
  MarkdownSection,
  Prompt,
  PromptTemplate,
  Session,
  Tool,
  ToolResult,
  evaluate,
} from '../../src/index.js';
import { startHttpHost, type HttpHost } from '../support/mcp-fixtures.js';

interface ChatRequest {
  readonly model: string;
  readonly stream: boolean;
  readonly messages: readonly Record<string, unknown>[];
  readonly tools: readonly { readonly function: { readonly name: string } }[];
  readonly format?: unknown;
}

async function body(req: http.IncomingMessage): Promise<ChatRequest> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return JSON.parse(text) as ChatRequest;
}

const hosts: HttpHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

describe('the Ollama adapter of examples/custom-adapter.ts', () => {
  it('runs a tool call and a structured answer through evaluate', async () => {
    const requests: ChatRequest[] = [];
    const host = await startHttpHost(async (req, res) => {
      const request = await body(req);
      requests.push(request);
      const message =
        requests.length === 1
          ? {
              role: 'assistant',
              content: '',
              tool_calls: [{ function: { name: 'double', arguments: { n: 21 } } }],
            }
          : { role: 'assistant', content: '{"answer":42}' };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ model: request.model, message, prompt_eval_count: 12, eval_count: 3 }),
      );
    });
    hosts.push(host);
    const double = Tool.create({
      name: 'double',
      description: 'Doubles n',
      params: z.object({ n: z.number() }),
      handler: ({ n }) => ToolResult.ok({ doubled: n * 2 }),
    });
    const prompt = new Prompt(
      PromptTemplate.create({
        ns: 'examples',
        key: 'ollama',
        sections: [
          new MarkdownSection({
            key: 'task',
            title: 'Task',
            template: 'Double 21.',
            tools: [double],
          }),
        ],
        output: z.object({ answer: z.number() }),
      }),
    );

    const result = await evaluate(prompt, {
      adapter: ollama('llama3.2', host.url('')),
      session: new Session(),
    });

    expect(result).toMatchObject({
      output: { answer: 42 },
      turns: 2,
      usage: { inputTokens: 24, outputTokens: 6, totalTokens: 30 },
    });
    expect(host.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'POST /api/chat',
      'POST /api/chat',
    ]);
    expect(requests[0]).toMatchObject({
      model: 'llama3.2',
      stream: false,
      tools: [{ type: 'function', function: { name: 'double' } }],
      format: prompt.render().outputSchema,
    });
    expect(requests[1]?.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ function: { name: 'double', arguments: { n: 21 } } }],
      },
      { role: 'tool', content: '{"doubled":42}', tool_name: 'double' },
    ]);
  });
});
