/**
 * Tool policies end to end, through McpIntegrationSection and real MCP
 * servers; what ran is read off the servers themselves.
 *
 * - An approval policy asks about two transfers, approves one and denies
 *   the other: the bank server sees exactly the approved one (and the
 *   small one that needed no approval).
 * - `denyAfterEscalation` refuses a tool the ratchet would let through;
 *   no policy, not even an approved ask, lets through a call the ratchet
 *   refuses.
 * - `readBeforeWrite` against `@modelcontextprotocol/server-filesystem`
 *   over stdio.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  McpIntegrationSection,
  PRIVATE_DATA_META_KEY,
  PolicyDecision,
  Prompt,
  PromptTemplate,
  Session,
  ToolInvoked,
  denyAfterEscalation,
  invokeFromAnthropic,
  invokeTool,
  readBeforeWrite,
  requireApproval,
  type ApprovalRequest,
  type RenderedPrompt,
  type ToolPolicy,
  type ToolResult,
} from '../../src/index.js';
import { filesystemServerPath } from '../support/everything.js';
import { recordEvents, tempDir, toolNamed, type TempDir } from '../support/mcp-fixtures.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';

/** What the bank server was asked to do, by tool. */
interface BankCalls {
  transfer: { to: string; amount: number }[];
  lookup_customer: number;
  fetch_rates: number;
}

/**
 * `transfer` and `lookup_customer` are declared closed-world (the ratchet
 * lets them run with private data in the session); `lookup_customer` marks
 * its result confidential; `fetch_rates` reaches the network.
 */
function bankServer(): { server: McpServer; calls: BankCalls } {
  const calls: BankCalls = { transfer: [], lookup_customer: 0, fetch_rates: 0 };
  const server = new McpServer({ name: 'bank', version: '1.0.0' });
  server.registerTool(
    'transfer',
    {
      description: 'Sends money',
      inputSchema: { to: z.string(), amount: z.number() },
      annotations: { openWorldHint: false },
    },
    ({ to, amount }) => {
      calls.transfer.push({ to, amount });
      return { content: [{ type: 'text', text: `sent ${amount} to ${to}` }] };
    },
  );
  server.registerTool(
    'lookup_customer',
    {
      description: 'Reads a customer record',
      inputSchema: { id: z.string() },
      annotations: { openWorldHint: false },
    },
    ({ id }) => {
      calls.lookup_customer += 1;
      return {
        content: [{ type: 'text', text: `customer ${id}: IBAN on file` }],
        _meta: { [PRIVATE_DATA_META_KEY]: { dataset: 'customers', sensitivity: 'confidential' } },
      };
    },
  );
  server.registerTool(
    'fetch_rates',
    {
      description: 'Fetches exchange rates',
      inputSchema: {},
      annotations: { openWorldHint: true },
    },
    () => {
      calls.fetch_rates += 1;
      return { content: [{ type: 'text', text: 'EUR/USD 1.08' }] };
    },
  );
  return { server, calls };
}

interface Bank {
  readonly session: Session;
  readonly section: McpIntegrationSection;
  readonly rendered: RenderedPrompt;
  readonly calls: BankCalls;
}

const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

/** A connected bank section with `policies`, in a prompt with `templatePolicies`, rendered. */
async function bank(policies: ToolPolicy[], templatePolicies: ToolPolicy[] = []): Promise<Bank> {
  const { server, calls } = bankServer();
  const session = new Session({ sessionId: 'bank-session' });
  const section = new McpIntegrationSection({
    servers: [{ name: 'bank', transport: { type: 'in-memory', server } }],
    session,
    policies,
  });
  sections.push(section);
  await section.connect();
  const template = PromptTemplate.create({
    ns: 'agent',
    key: 'bank',
    sections: [section],
    policies: templatePolicies,
  });
  return { session, section, rendered: new Prompt(template).render({ session }), calls };
}

/** A model's call of `name`, run the way an Anthropic tool_use block is. */
function modelCalls(
  { rendered, session }: Bank,
  name: string,
  input: Record<string, unknown>,
  approval?: (request: ApprovalRequest) => 'approve' | { deny: string },
): Promise<ToolResult> {
  return invokeFromAnthropic(
    rendered,
    { name, input },
    {
      session,
      ...(approval === undefined ? {} : { approval }),
    },
  );
}

describe('an approval policy on an MCP section', () => {
  const largeTransfers = requireApproval<{ to: string; amount: number }>({
    tools: ['transfer'],
    when: (params) => params.amount > 100,
    reason: (_tool, params) => `transfer of ${params.amount} to ${params.to}`,
  });

  it('asks about two transfers, approves one, denies the other: the server ran only what was allowed', async () => {
    const setup = await bank([largeTransfers]);
    const events = recordEvents(setup.session);
    const asked: ApprovalRequest[] = [];
    const approval = (request: ApprovalRequest): 'approve' | { deny: string } => {
      asked.push(request);
      return (request.params as { to: string }).to === 'alice'
        ? 'approve'
        : { deny: 'unknown payee' };
    };

    const small = await modelCalls(setup, 'bank_transfer', { to: 'bob', amount: 20 }, approval);
    const approved = await modelCalls(
      setup,
      'bank_transfer',
      { to: 'alice', amount: 500 },
      approval,
    );
    const denied = await modelCalls(
      setup,
      'bank_transfer',
      { to: 'mallory', amount: 900 },
      approval,
    );
    events.stop();

    expect([small.success, approved.success, denied.success]).toEqual([true, true, false]);
    expect(denied.message).toBe(
      'tool "bank_transfer" was denied by policy "require-approval": approval was refused: unknown payee',
    );
    // The server's own record: the small transfer and the approved one, nothing else.
    expect(setup.calls.transfer).toEqual([
      { to: 'bob', amount: 20 },
      { to: 'alice', amount: 500 },
    ]);
    expect(
      asked.map((request) => [
        request.toolName,
        request.mcpServer,
        request.originalName,
        request.reason,
      ]),
    ).toEqual([
      ['bank_transfer', 'bank', 'transfer', 'transfer of 500 to alice'],
      ['bank_transfer', 'bank', 'transfer', 'transfer of 900 to mallory'],
    ]);
    const invoked = events.of(ToolInvoked);
    expect(invoked.map((event) => [event.params, event.result.success, event.denial])).toEqual([
      [{ to: 'bob', amount: 20 }, true, undefined],
      [{ to: 'alice', amount: 500 }, true, undefined],
      [
        { to: 'mallory', amount: 900 },
        false,
        { policy: 'require-approval', reason: 'approval was refused: unknown payee' },
      ],
    ]);
    expect(invoked.every((event) => event.source === 'mcp' && event.mcpServer === 'bank')).toBe(
      true,
    );
  });

  it('section.execute runs the section’s own policies too', async () => {
    const setup = await bank([largeTransfers]);
    const denied = await setup.section.execute(
      { name: 'bank.transfer', arguments: { to: 'mallory', amount: 900 } },
      { approval: () => 'deny' },
    );
    const unasked = await setup.section.execute({
      name: 'bank__transfer',
      arguments: { to: 'alice', amount: 500 },
    });
    expect(denied.message).toBe(
      'tool "bank_transfer" was denied by policy "require-approval": approval was refused',
    );
    expect(unasked.message).toMatch(/without an approval handler/);
    expect(setup.calls.transfer).toEqual([]);
  });
});

describe('policies and the isolation ratchet', () => {
  it('denyAfterEscalation refuses a tool the ratchet lets through once the session holds private data', async () => {
    const setup = await bank([denyAfterEscalation({ tools: ['transfer'] })]);
    expect((await modelCalls(setup, 'bank_transfer', { to: 'bob', amount: 5 })).success).toBe(true);

    expect((await modelCalls(setup, 'bank_lookup_customer', { id: '42' })).success).toBe(true);
    expect(setup.session.privateData.sensitivity).toBe('confidential');
    const refused = await modelCalls(setup, 'bank_transfer', { to: 'bob', amount: 6 });

    expect(refused.message).toBe(
      'tool "bank_transfer" was denied by policy "deny-after-escalation": the session holds confidential data (at or above "internal"), and tool "bank_transfer" may not run after that',
    );
    expect(setup.calls.transfer).toEqual([{ to: 'bob', amount: 5 }]);
    // The ratchet alone would have let it run: the same tool without the policy reaches the server.
    const direct = await invokeTool(
      toolNamed(setup.section, 'bank_transfer'),
      { to: 'bob', amount: 7 },
      {
        session: setup.session,
      },
    );
    expect(direct.success).toBe(true);
    expect(setup.calls.transfer).toHaveLength(2);
  });

  it('no policy can let through a call the ratchet refuses, not even an approved ask', async () => {
    const allowEverything: ToolPolicy = {
      name: 'allow-everything',
      check: () => PolicyDecision.allow(),
    };
    const setup = await bank([allowEverything], [requireApproval({ tools: ['fetch_rates'] })]);
    const asked: string[] = [];
    const approveAll = (request: ApprovalRequest): 'approve' => {
      asked.push(request.toolName);
      return 'approve';
    };
    expect((await modelCalls(setup, 'bank_fetch_rates', {}, approveAll)).success).toBe(true);
    await modelCalls(setup, 'bank_lookup_customer', { id: '42' });
    const events = recordEvents(setup.session);

    const blocked = await modelCalls(setup, 'bank_fetch_rates', {}, approveAll);
    events.stop();

    expect(asked).toEqual(['bank_fetch_rates', 'bank_fetch_rates']);
    expect(blocked.success).toBe(false);
    expect(blocked.message).toMatch(/^tool "bank_fetch_rates" is blocked: /);
    expect(setup.calls.fetch_rates).toBe(1);
    // The ratchet refused it, not a policy.
    expect(events.of(ToolInvoked).map((event) => event.denial)).toEqual([undefined]);
  });

  it('policies run before the ratchet: a policy’s denial is what the model reads', async () => {
    const setup = await bank([denyAfterEscalation({ tools: ['fetch_rates'] })]);
    await modelCalls(setup, 'bank_lookup_customer', { id: '42' });
    const refused = await modelCalls(setup, 'bank_fetch_rates', {});
    expect(refused.message).toMatch(
      /^tool "bank_fetch_rates" was denied by policy "deny-after-escalation": /,
    );
    expect(setup.calls.fetch_rates).toBe(0);
  });
});

describe('readBeforeWrite against server-filesystem over stdio', () => {
  let before: number[];
  let root: TempDir;
  let config: string;
  let session: Session;
  let section: McpIntegrationSection;
  let rendered: RenderedPrompt;

  beforeAll(async () => {
    before = childPids();
    root = await tempDir('policy-fs-root');
    config = path.join(root.path, 'config.yaml');
    await writeFile(config, 'mode: safe\n');
    session = new Session();
    section = new McpIntegrationSection({
      servers: [
        {
          name: 'fs',
          transport: {
            type: 'stdio',
            command: process.execPath,
            args: [filesystemServerPath, root.path],
          },
        },
      ],
      session,
      policies: [readBeforeWrite({ root: root.path })],
    });
    await section.connect();
    rendered = new Prompt(
      PromptTemplate.create({ ns: 'agent', key: 'files', sections: [section] }),
    ).render({
      session,
    });
  });

  afterAll(async () => {
    await section?.disconnect();
    await root?.[Symbol.asyncDispose]();
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  function run(name: string, input: Record<string, unknown>): Promise<ToolResult> {
    return invokeFromAnthropic(rendered, { name, input }, { session });
  }

  it('refuses to overwrite an unread file, allows it once read, and lets new files be made', async () => {
    const refused = await run('fs_write_file', { path: config, content: 'mode: fast\n' });
    expect(refused.message).toBe(
      `tool "fs_write_file" was denied by policy "read-before-write": file ${JSON.stringify(config)} exists and has not been read in this session; read it first (read_file or read_text_file or read_multiple_files)`,
    );
    expect(await readFile(config, 'utf8')).toBe('mode: safe\n');
    const edit = await run('fs_edit_file', {
      path: 'config.yaml',
      edits: [{ oldText: 'safe', newText: 'fast' }],
    });
    expect(edit.success).toBe(false);
    expect(await readFile(config, 'utf8')).toBe('mode: safe\n');

    const read = await run('fs_read_text_file', { path: config });
    expect(read.success, read.message).toBe(true);
    expect(read.message).toContain('mode: safe');
    const written = await run('fs_write_file', { path: config, content: 'mode: fast\n' });
    expect(written.success, written.message).toBe(true);
    expect(await readFile(config, 'utf8')).toBe('mode: fast\n');

    const created = await run('fs_write_file', {
      path: path.join(root.path, 'new.md'),
      content: '# new\n',
    });
    expect(created.success, created.message).toBe(true);
    expect(await readFile(path.join(root.path, 'new.md'), 'utf8')).toBe('# new\n');
  });
});
