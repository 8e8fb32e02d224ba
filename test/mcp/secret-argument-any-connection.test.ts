/**
 * One backend reached through several connections of a session shares its
 * state: a call's secret argument that it writes back on another
 * connection (two names for one deployment), or into a tool description,
 * title or schema it lists again while the call runs, is masked there
 * too: in the log, the other call's answer, the prompt text,
 * `toolDefinitions()`, what the validator says, and a connection error.
 * Never in another session's text (it would learn the value by what is
 * masked), and never in a tool's name (an identifier).
 */
import { inspect } from 'node:util';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  invokeTool,
  McpConnectionPool,
  McpIntegrationSection,
  McpServerLog,
  Prompt,
  PromptTemplate,
  Session,
  ToolInvoked,
} from '../../src/index.js';
import { toolNamed } from '../support/mcp-fixtures.js';

const PASSWORD = 'Corr3ct-Horse-pw-9931';

/**
 * A backend whose every connection (one `McpServer` each) shares what
 * `login` was given: `login` keeps the password and waits for `release`;
 * `poke` logs it and answers with it; `login` also writes it into the
 * description and title of `help`, which the SDK announces as a change.
 */
function sharedBackend() {
  let kept = '';
  let release = (): void => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const connection = (): McpServer => {
    const server = new McpServer(
      { name: 'shared', version: '1.0.0' },
      { capabilities: { logging: {} } },
    );
    const help = server.registerTool(
      'help',
      { description: 'Shows help', inputSchema: {}, annotations: { openWorldHint: false } },
      () => ({ content: [{ type: 'text', text: 'help' }] }),
    );
    server.registerTool(
      'login',
      {
        inputSchema: { user: z.string(), password: z.string() },
        annotations: { openWorldHint: false },
      },
      async ({ password }) => {
        kept = password;
        help.update({
          description: `Shows help (last login ${password})`,
          title: `Help ${password}`,
        });
        await held;
        return { content: [{ type: 'text', text: 'logged in' }] };
      },
    );
    server.registerTool(
      'echo',
      { inputSchema: { note: z.string() }, annotations: { openWorldHint: false } },
      ({ note }) => ({ isError: true, content: [{ type: 'text', text: `unknown note ${note}` }] }),
    );
    server.registerTool(
      'poke',
      { inputSchema: {}, annotations: { openWorldHint: false } },
      async (_args, extra) => {
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'warning', data: `last password was ${kept}` },
        });
        return { content: [{ type: 'text', text: `someone logged in with ${kept}` }] };
      },
    );
    return server;
  };
  return { connection, release, loggedIn: () => kept !== '' };
}

const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

async function connected(session: Session, servers: Record<string, McpServer | Server>) {
  const section = new McpIntegrationSection({
    session,
    servers: Object.entries(servers).map(([name, server]) => ({
      name,
      transport: { type: 'in-memory' as const, server },
    })),
  });
  sections.push(section);
  await section.connect();
  return section;
}

/**
 * Every event of `session`, as text, but the `ToolInvoked` of `login`
 * (its params are the call's own arguments, shown as the caller gave them).
 */
function recorded(session: Session): string[] {
  const texts: string[] = [];
  session.bus.subscribeAll((event) => {
    if (event instanceof ToolInvoked && event.originalName === 'login') return;
    texts.push(JSON.stringify(event));
  });
  return texts;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('a secret argument written back on another connection of the same backend', () => {
  /**
   * One backend under two names in a section (`accounts`, `diag`), with
   * `accounts_login` in flight; `done` lets it end and waits for it.
   */
  async function loggedInUnderTwoNames() {
    const backend = sharedBackend();
    const session = new Session();
    const texts = recorded(session);
    const section = await connected(session, {
      accounts: backend.connection(),
      diag: backend.connection(),
    });
    const login = invokeTool(
      toolNamed(section, 'accounts_login'),
      { user: 'ada', password: PASSWORD },
      { session },
    );
    await until(backend.loggedIn);
    const done = async (): Promise<void> => {
      backend.release();
      await login;
    };
    return { session, section, texts, done };
  }

  it('is masked in the log and the answer of a second name for the deployment', async () => {
    const { session, section, texts, done } = await loggedInUnderTwoNames();
    await invokeTool(toolNamed(section, 'diag_poke'), {}, { session });
    await done();
    expect(texts.some((text) => text.includes('someone logged in with ***'))).toBe(true);
    expect(texts.some((text) => text.includes('last password was ***'))).toBe(true);
    expect(texts.filter((text) => text.includes(PASSWORD))).toEqual([]);
  });

  it('is not masked where the server echoes what a call sent itself: a guess is not confirmed', async () => {
    const { session, section, done } = await loggedInUnderTwoNames();
    const guessed = await invokeTool(
      toolNamed(section, 'diag_echo'),
      { note: PASSWORD },
      { session },
    );
    const other = await invokeTool(toolNamed(section, 'diag_echo'), { note: 'pw?' }, { session });
    await done();
    expect(guessed.message).toBe(`unknown note ${PASSWORD}`);
    expect(other.message).toBe('unknown note pw?');
  });

  it("does not mask another session's text with it: what is masked would tell that session the value", async () => {
    const backend = sharedBackend();
    const first = new Session();
    const second = new Session();
    const accounts = await connected(first, { accounts: backend.connection() });
    const diag = await connected(second, { diag: backend.connection() });
    const logs: string[] = [];
    second.bus.subscribe(McpServerLog, (event) => logs.push(event.message));
    const login = invokeTool(
      toolNamed(accounts, 'accounts_login'),
      { user: 'ada', password: PASSWORD },
      { session: first },
    );
    await until(backend.loggedIn);
    // The second session's guess, echoed back, reads as it was sent.
    await invokeTool(toolNamed(diag, 'diag_poke'), {}, { session: second });
    backend.release();
    await login;
    expect(logs).toContain(`last password was ${PASSWORD}`);
  });
});

describe('a secret argument written into a tool the server lists again while the call runs', () => {
  it('is masked in the description and title, in the prompt text and the tool definitions', async () => {
    const backend = sharedBackend();
    const session = new Session();
    const texts = recorded(session);
    const section = await connected(session, { acct: backend.connection() });
    const template = PromptTemplate.create({ ns: 'r', key: 'p', sections: [section] });
    const login = invokeTool(
      toolNamed(section, 'acct_login'),
      { user: 'ada', password: PASSWORD },
      { session },
    );
    await until(() => toolNamed(section, 'acct_help').description.includes('last login'));
    const prompt = new Prompt(template).render({ session });
    const help = toolNamed(section, 'acct_help');
    backend.release();
    await login;
    expect(help.description).toBe('Shows help (last login ***)');
    expect(help.annotations.title).toBe('Help ***');
    expect(prompt.text).toContain('Shows help (last login ***)');
    const shown = [prompt.text, JSON.stringify(prompt.toolDefinitions()), ...texts];
    expect(shown.filter((text) => text.includes(PASSWORD))).toEqual([]);
  });
});

describe('a secret argument quoted where a listing, or a refused listing, is read', () => {
  /**
   * A backend (one raw `Server` per connection, sharing state) whose
   * `login` keeps its password and, while it waits for `release`, lists
   * `search` with the password as an allowed mode; its listing fails,
   * quoting the password, once `refuse` was called.
   */
  function quotingBackend() {
    let kept = '';
    let refuseListing = false;
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const connection = (): Server => {
      const server = new Server(
        { name: 'quoting', version: '1.0.0' },
        { capabilities: { tools: { listChanged: true } } },
      );
      server.setRequestHandler(ListToolsRequestSchema, () => {
        if (refuseListing) throw new Error(`listing refused: ${kept} is busy`);
        const modes = kept === '' ? ['fast'] : ['fast', kept];
        return {
          tools: [
            {
              name: 'login',
              annotations: { openWorldHint: false },
              inputSchema: { type: 'object', properties: { password: { type: 'string' } } },
            },
            {
              name: 'search',
              annotations: { openWorldHint: false },
              inputSchema: {
                type: 'object',
                properties: { mode: { type: 'string', enum: modes } },
                required: ['mode'],
              },
            },
            {
              name: 'lookup_account',
              annotations: { openWorldHint: false },
              inputSchema: { type: 'object' },
            },
          ],
        };
      });
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        if (request.params.name === 'login') {
          kept = String(request.params.arguments?.['password']);
          await server.sendToolListChanged();
          await held;
        }
        return { content: [{ type: 'text' as const, text: 'ok' }] };
      });
      return server;
    };
    return {
      connection,
      release,
      loggedIn: () => kept !== '',
      refuse: () => void (refuseListing = true),
    };
  }

  it('masks it in what the validator quotes of a schema listed during the call, and renames no tool', async () => {
    const quoting = quotingBackend();
    const session = new Session();
    const section = await connected(session, { acct: quoting.connection() });
    const names = section.tools().map((tool) => tool.name);
    // 'account' is a password here, and a word of a tool's name.
    const login = invokeTool(
      toolNamed(section, 'acct_login'),
      { password: 'account' },
      { session },
    );
    await until(() =>
      JSON.stringify(toolNamed(section, 'acct_search').inputSchema).includes('account'),
    );
    const refused = await invokeTool(
      toolNamed(section, 'acct_search'),
      { mode: 'slow' },
      { session },
    );
    quoting.release();
    await login;
    expect(refused.success).toBe(false);
    expect(refused.message).toContain('"fast", "***"');
    expect(section.tools().map((tool) => tool.name)).toEqual(names);
  });

  it("masks it in a connection error's message and its cause", async () => {
    const quoting = quotingBackend();
    const session = new Session();
    const first = await connected(session, { acct: quoting.connection() });
    const login = invokeTool(toolNamed(first, 'acct_login'), { password: PASSWORD }, { session });
    await until(quoting.loggedIn);
    quoting.refuse();
    const second = new McpIntegrationSection({
      session,
      key: 'second',
      onConnectError: 'throw',
      servers: [{ name: 'acct2', transport: { type: 'in-memory', server: quoting.connection() } }],
    });
    sections.push(second);
    // Another connection to the backend, which refuses its listing with the first call's password.
    const error = await second.connect().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    quoting.release();
    await login;
    expect(error).toBeInstanceOf(Error);
    expect(inspect(error, { depth: 5 })).not.toContain(PASSWORD);
  });
});

describe("another call's secret argument where a quote or a refusal could cut or echo it", () => {
  it('is masked in an output-schema violation before the quote cuts it short', async () => {
    const token = 'tok_9fK2mQ7xL4pR8vN1zW6cB3hJ5dS0aE';
    let kept = '';
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const server = new Server({ name: 'svc', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        {
          name: 'connect',
          annotations: { openWorldHint: false },
          inputSchema: { type: 'object', properties: { apiToken: { type: 'string' } } },
        },
        {
          name: 'status',
          annotations: { openWorldHint: false },
          inputSchema: { type: 'object' },
          outputSchema: {
            type: 'object',
            properties: { sessions: { type: 'number' } },
            required: ['sessions'],
          },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      if (request.params.name === 'connect') {
        kept = String(request.params.arguments?.['apiToken']);
        await held;
        return { content: [{ type: 'text' as const, text: 'connected' }] };
      }
      // A count that holds a description with the token: the violation quotes it cut at 40.
      return {
        content: [{ type: 'text' as const, text: 'status' }],
        structuredContent: { sessions: `active session (token) ${kept}` },
      };
    });
    const session = new Session();
    const section = await connected(session, { svc: server });
    const connecting = invokeTool(
      toolNamed(section, 'svc_connect'),
      { apiToken: token },
      { session },
    );
    await until(() => kept !== '');
    const status = await invokeTool(toolNamed(section, 'svc_status'), {}, { session });
    release();
    await connecting;
    expect(status.success).toBe(false);
    // What the cut leaves of it: 17 characters, too few for the text's mask to know.
    expect(status.message).not.toContain(token.slice(0, 17));
  });

  it("is not masked in a pool's refusal that quotes what its caller asked for", async () => {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered = false;
    const server = new McpServer({ name: 'auth', version: '1.0.0' });
    server.registerTool(
      'login',
      { inputSchema: { password: z.string() }, annotations: { openWorldHint: false } },
      async () => {
        entered = true;
        await held;
        return { content: [{ type: 'text', text: 'ok' }] };
      },
    );
    const pool = new McpConnectionPool();
    const session = new Session();
    const section = new McpIntegrationSection({
      session,
      pool,
      servers: [{ name: 'auth', transport: { type: 'in-memory', server } }],
    });
    sections.push(section);
    await section.connect();
    const login = invokeTool(toolNamed(section, 'auth_login'), { password: PASSWORD }, { session });
    await until(() => entered);
    // Code outside any call guesses: a masked guess would tell it the password.
    const refused = await pool.callTool('auth', PASSWORD, {});
    release();
    await login;
    expect(JSON.stringify(refused.content)).toContain(`has no tool \\"${PASSWORD}\\"`);
  });
});
