/**
 * A server's own requests (sampling, elicitation, roots) carry the
 * application's answers to the server, as a tool call's arguments do.
 * Once the session holds private data, a normal endpoint is not answered
 * (an answer decided before is not sent after); the isolated endpoint is,
 * and the handler is told which one asked. Another worker's escalation in
 * the session's store counts too.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FileSessionStore,
  McpIntegrationSection,
  type McpServerConfig,
  type ServerRequestContext,
  Session,
} from '../../src/index.js';

const ASK: CreateMessageRequest['params'] = {
  messages: [{ role: 'user', content: { type: 'text', text: 'what do you know?' } }],
  maxTokens: 10,
};

const sections: McpIntegrationSection[] = [];
const directories: string[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
  await Promise.all(directories.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

function peer(label: string): McpServer {
  const server = new McpServer({ name: label, version: '1.0.0' });
  server.registerTool('noop', { description: 'Does nothing' }, () => ({
    content: [{ type: 'text', text: 'ok' }],
  }));
  return server;
}

/** A section whose handlers record who asked; the sampling answer names what the session knows. */
async function setup(
  server: Omit<McpServerConfig, 'name' | 'transport'>,
  options: { session?: Session; sampling?: () => Promise<void> } = {},
) {
  const normal = peer('normal');
  const asked: ServerRequestContext[] = [];
  const session = options.session ?? new Session();
  const section = new McpIntegrationSection({
    session,
    servers: [{ name: 'peer', transport: { type: 'in-memory', server: normal }, ...server }],
    sampling: async (_params, context) => {
      asked.push(context);
      await options.sampling?.();
      return {
        role: 'assistant',
        model: 'm',
        content: { type: 'text', text: `the session is ${session.privateData.sensitivity}` },
      };
    },
    elicitation: (_params, context) => {
      asked.push(context);
      return { action: 'accept', content: { secret: 'the user said so' } };
    },
    roots: (context) => {
      asked.push(context);
      return [{ uri: 'file:///home/alice/patients', name: 'patients' }];
    },
  });
  sections.push(section);
  await section.connect();
  return { session, section, normal, asked };
}

const REFUSED = /the client does not answer server "peer" now: the session holds private data/;

describe('a server’s own requests and the ratchet', () => {
  it('answers a normal endpoint while the session is public, telling the handler which endpoint asked', async () => {
    const { normal, asked } = await setup({});
    expect(await normal.server.createMessage(ASK)).toMatchObject({
      content: { text: 'the session is public' },
    });
    expect(await normal.server.listRoots()).toEqual({
      roots: [{ uri: 'file:///home/alice/patients', name: 'patients' }],
    });
    expect(asked.map(({ serverName, endpoint }) => [serverName, endpoint])).toEqual([
      ['peer', 'normal'],
      ['peer', 'normal'],
    ]);
  });

  it('refuses every request of a server without isolation once the session holds private data, without calling a handler', async () => {
    const { session, normal, asked } = await setup({});
    session.privateData.add('patients', 'internal');
    await expect(normal.server.createMessage(ASK)).rejects.toThrow(REFUSED);
    await expect(normal.server.listRoots()).rejects.toThrow(REFUSED);
    await expect(
      normal.server.elicitInput({
        message: 'secret?',
        requestedSchema: { type: 'object', properties: { secret: { type: 'string' } } },
      }),
    ).rejects.toThrow(REFUSED);
    expect(asked).toEqual([]);
  });

  it('answers the isolated endpoint and refuses the normal one after the switch', async () => {
    const isolated = peer('isolated');
    const { session, section, normal, asked } = await setup({
      isolation: { transport: { type: 'in-memory', server: isolated } },
    });
    session.privateData.add('patients', 'confidential');
    // A call moves the route to the isolated endpoint.
    const noop = section.tools().find((tool) => tool.name === 'peer_noop')!;
    expect(
      (
        await noop.handler(
          {},
          {
            session,
            signal: new AbortController().signal,
            resources: session.resources,
            callId: 'c',
          },
        )
      ).success,
    ).toBe(true);
    await expect(normal.server.createMessage(ASK)).rejects.toThrow(REFUSED);
    expect(await isolated.server.createMessage(ASK)).toMatchObject({
      content: { text: 'the session is confidential' },
    });
    expect(asked.map(({ endpoint }) => endpoint)).toEqual(['isolated']);
  });

  it('does not send an answer decided before the session escalated once it has', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const started = new Promise<void>((resolve) => (entered = resolve));
    const { session, normal, asked } = await setup(
      {},
      {
        sampling: () => {
          entered();
          return held;
        },
      },
    );
    const answer = normal.server.createMessage(ASK);
    await started;
    session.privateData.add('patients', 'confidential');
    release();
    await expect(answer).rejects.toThrow(REFUSED);
    expect(asked).toHaveLength(1);
  });

  it('refuses the normal endpoint once another worker stored an escalation of the session', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'server-requests-'));
    directories.push(directory);
    const store = new FileSessionStore({ directory });
    const other = await Session.open({ sessionId: 'conv-1', store });
    const here = await Session.open({
      sessionId: 'conv-1',
      store: new FileSessionStore({ directory }),
    });
    const { normal, asked } = await setup({}, { session: here });
    expect(await normal.server.createMessage(ASK)).toMatchObject({
      content: { text: 'the session is public' },
    });
    other.privateData.add('patients', 'secret');
    await other.flush();
    await expect(normal.server.createMessage(ASK)).rejects.toThrow(REFUSED);
    expect(here.privateData.sensitivity).toBe('secret');
    expect(asked).toHaveLength(1);
  });
});
