import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  McpIntegrationSection,
  McpServerLog,
  PromptExecuted,
  Prompt,
  PromptTemplate,
  Section,
  Session,
  Tool,
  ToolResult,
  TraceError,
  TraceRecorder,
  defineEvent,
  invokeTool,
  readTrace,
  type McpServerConfig,
  type TraceEventRecord,
  type TraceRecord,
} from '../../src/index.js';
import { rawToolServer, secretInToolName, toolNamed } from '../support/mcp-fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'trace-recorder-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function records(file: string): Promise<TraceRecord[]> {
  return (await readTrace(file)).records as TraceRecord[];
}

function events(all: readonly TraceRecord[], type: string): TraceEventRecord[] {
  return all.filter(
    (record): record is TraceEventRecord => record.kind === 'event' && record.type === type,
  );
}

const notes = (session: Session) => session.slice('notes', { initial: { list: [] as string[] } });

function noteTool(session: Session): Tool {
  const slice = notes(session);
  return Tool.create({
    name: 'note',
    description: 'Keeps a note; "fail" fails after writing.',
    params: z.object({ text: z.string(), apiKey: z.string().optional() }),
    handler: ({ text }) => {
      slice.update((draft) => {
        draft.list.push(text);
      });
      if (text === 'fail') return ToolResult.error('failed on purpose');
      return ToolResult.ok({ kept: text.toUpperCase() }, `kept ${text.toUpperCase()}`);
    },
  });
}

/** A section whose body shows the notes slice, as a section may show any session state. */
class NotesSection extends Section<undefined> {
  readonly #slice: ReturnType<typeof notes>;
  constructor(slice: ReturnType<typeof notes>) {
    super({ key: 'notes', title: 'Notes' });
    this.#slice = slice;
  }
  override renderBody(): string {
    return this.#slice.get().list.join('\n');
  }
}

class PolicyDecided extends defineEvent<{
  readonly sessionId: string;
  readonly callId: string;
  readonly decision: string;
  readonly decidedAt: Date;
  readonly details: ReadonlyMap<string, number>;
}>() {}

describe('TraceRecorder', () => {
  it('records any event class generically, as its class name and JSON fields', async () => {
    const session = new Session();
    const file = path.join(dir, 'run.jsonl');
    const trace = new TraceRecorder(session, { path: file });
    session.dispatch(
      new PolicyDecided({
        sessionId: session.sessionId,
        callId: 'c1',
        decision: 'deny',
        decidedAt: new Date('2026-01-02T03:04:05.000Z'),
        details: new Map([['score', 3]]),
      }),
    );
    // Another session's events on a shared bus are not this trace's.
    session.bus.dispatch(
      new PolicyDecided({
        sessionId: 'someone-else',
        callId: 'c2',
        decision: 'allow',
        decidedAt: new Date(),
        details: new Map(),
      }),
    );
    await trace.close();
    const [event, ...others] = events(await records(file), 'PolicyDecided');
    expect(others).toEqual([]);
    expect(event?.fields).toEqual({
      sessionId: session.sessionId,
      callId: 'c1',
      decision: 'deny',
      decidedAt: '2026-01-02T03:04:05.000Z',
      details: { score: 3 },
    });
  });

  it('masks secret arguments, schema-marked ones, and the servers secrets wherever they appear', async () => {
    const envSecret = 'env-value-7f3a9c';
    const raw = rawToolServer([
      {
        name: 'login',
        inputSchema: {
          type: 'object',
          properties: { user: { type: 'string' }, pin: { type: 'string', 'x-secret': true } },
        },
        annotations: { openWorldHint: false },
        handler: (args) => ({
          content: [
            {
              type: 'text',
              text: `welcome ${String(args?.['user'])} pin ${String(args?.['pin'])} env ${envSecret}`,
            },
          ],
        }),
      },
    ]);
    const servers: McpServerConfig[] = [
      {
        name: 'auth',
        transport: { type: 'in-memory', server: raw.server },
        env: { TOKEN: envSecret },
      },
    ];
    const session = new Session();
    await using section = new McpIntegrationSection({ servers, session });
    await section.connect();
    const file = path.join(dir, 'run.jsonl');
    const trace = new TraceRecorder(session, { path: file, servers, tools: section });
    await invokeTool(toolNamed(section, 'auth_login'), { user: 'ada', pin: '90210' }, { session });
    const note = noteTool(session);
    await invokeTool(note, { text: 'call with key', apiKey: 'sk-abcdef' }, { session });
    await trace.close();

    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(envSecret);
    expect(text).not.toContain('90210');
    expect(text).not.toContain('sk-abcdef');
    const [login, noted] = events(await records(file), 'ToolInvoked');
    expect(login?.fields['params']).toEqual({ user: 'ada', pin: '***' });
    expect((login?.fields['result'] as { message: string }).message).toBe(
      'welcome ada pin *** env ***',
    );
    expect(noted?.fields['params']).toEqual({ text: 'call with key', apiKey: '***' });
  });

  /** The records of a trace of `server`'s tool listed, rendered and called once, and its tool's bridged name. */
  async function traceOfOneCall(server: McpServerConfig) {
    const session = new Session();
    await using section = new McpIntegrationSection({ servers: [server], session });
    await section.connect();
    const file = path.join(dir, 'run.jsonl');
    const trace = new TraceRecorder(session, { path: file, servers: [server], tools: section });
    new Prompt(PromptTemplate.create({ ns: 't', key: 'p', sections: [section] })).render({
      session,
    });
    await invokeTool(section.tools()[0]!, {}, { session });
    await trace.close();
    const all = await records(file);
    const listed = all.find((record) => record.kind === 'tools');
    return {
      text: await readFile(file, 'utf8'),
      all,
      tool: listed?.kind === 'tools' ? listed.tools[0] : undefined,
      bridged: section.tools()[0]!.name,
    };
  }

  it("masks the servers' secrets in the original names its tools records keep", async () => {
    const secret = 'Key-7F3A-9C1E';
    const { text, tool } = await traceOfOneCall(
      secretInToolName('auth', `use key ${secret}`, secret),
    );
    expect(text).not.toContain(secret);
    expect(tool?.originalName).toBe('use key ***');
  });

  it("shows nothing of a server's secret in a tool's names, in its tools records and events", async () => {
    // Lower-case letters and digits: it would fit in a bridged name unchanged.
    const secret = 'ghpz9xq7kl2mn4pr8st1uv';
    const { text, all, tool, bridged } = await traceOfOneCall(
      secretInToolName('auth', `tok_${secret}`, secret),
    );
    // Bridged from the masked name (tool-naming.ts).
    expect(bridged).toMatch(/^auth_tok_{5}[0-9a-f]{8}$/);
    expect(text).not.toContain(secret);
    expect(tool).toMatchObject({ name: bridged, originalName: 'tok_***' });
    expect(events(all, 'ToolInvoked')[0]?.fields['toolName']).toBe(bridged);
  });

  it("leaves out the model's answer and a server's log text once the session holds private data", async () => {
    const session = new Session();
    const file = path.join(dir, 'run.jsonl');
    const trace = new TraceRecorder(session, { path: file });
    session.privateData.add('crm', 'confidential');
    const base = { sessionId: session.sessionId, createdAt: new Date() };
    session.dispatch(
      new McpServerLog({
        ...base,
        serverName: 'crm',
        level: 'info',
        message: 'fetched row Ada 91k-log',
      }),
    );
    session.dispatch(
      new PromptExecuted({
        ...base,
        ns: 'demo',
        key: 'ask',
        adapter: 'scripted',
        turns: 1,
        toolCalls: 0,
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        text: 'Ada earns 91k',
        output: { salary: '91k-out' },
        durationMs: 1,
      }),
    );
    await trace.close();
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('91k');
    expect(events(await records(file), 'PromptExecuted')[0]?.fields['withheld']).toBe(
      'private-data',
    );
  });

  it('leaves out results and slices once the session holds private data, keeping failure reasons', async () => {
    const session = new Session();
    const note = noteTool(session);
    const file = path.join(dir, 'run.jsonl');
    const trace = new TraceRecorder(session, { path: file });
    await invokeTool(note, { text: 'before' }, { session });
    session.privateData.add('crm', 'confidential');
    await invokeTool(note, { text: 'private value' }, { session });
    await invokeTool(note, { text: 'fail' }, { session });
    await trace.close();

    const all = await records(file);
    const [before, after, failed] = events(all, 'ToolInvoked');
    expect(before?.fields['result']).toEqual({
      message: 'kept BEFORE',
      value: { kept: 'BEFORE' },
      success: true,
    });
    expect(after?.fields['result']).toEqual({ success: true, withheld: 'private-data' });
    expect(failed?.fields['result']).toEqual({
      success: false,
      message: 'failed on purpose',
      withheld: 'private-data',
    });
    const snapshots = all.filter((record) => record.kind === 'snapshot');
    expect(snapshots.map((record) => [record.label, record.slices, record.withheld])).toEqual([
      ['start', { notes: { list: [] } }, []],
      ['after note', { notes: { list: ['before'] } }, []],
      ['after note', {}, ['notes']],
    ]);
    // The arguments stay (they are what the model sent); what came back does not.
    expect(after?.fields['params']).toEqual({ text: 'private value' });
    expect(JSON.stringify(all)).not.toContain('PRIVATE VALUE');
  });

  it('leaves out the text of prompts rendered once the session holds private data (a section may show session state)', async () => {
    const session = new Session();
    const file = path.join(dir, 'prompts.jsonl');
    const trace = new TraceRecorder(session, { path: file });
    const slice = notes(session);
    const prompt = new Prompt(
      PromptTemplate.create({
        ns: 'trace',
        key: 'state',
        sections: [new NotesSection(slice)],
      }),
    );
    slice.update((draft) => {
      draft.list = ['public note'];
    });
    prompt.render({ session });
    session.privateData.add('crm', 'confidential');
    slice.update((draft) => {
      draft.list = ['salary of Ada: 91k'];
    });
    prompt.render({ session });
    await trace.close();

    const rendered = events(await records(file), 'PromptRendered');
    expect(rendered.map((record) => record.fields['withheld'])).toEqual([
      undefined,
      'private-data',
    ]);
    expect(rendered[0]?.fields['text']).toContain('public note');
    expect(rendered[1]?.fields['toolNames']).toEqual([]);
    expect(await readFile(file, 'utf8')).not.toContain('91k');
  });

  it('keeps private results when the application opts in', async () => {
    const session = new Session();
    const note = noteTool(session);
    const file = path.join(dir, 'run.jsonl');
    const trace = new TraceRecorder(session, { path: file, includePrivateResults: true });
    session.privateData.add('crm', 'secret');
    await invokeTool(note, { text: 'private value' }, { session });
    await trace.close();
    const [call] = events(await records(file), 'ToolInvoked');
    expect(call?.fields['result']).toMatchObject({ message: 'kept PRIVATE VALUE', success: true });
    const [escalated] = events(await records(file), 'SensitivityEscalated');
    expect(escalated?.fields).toMatchObject({
      previous: 'public',
      sensitivity: 'secret',
      dataset: 'crm',
    });
  });

  it('rotates by size: every part starts with a header and the state so far, older parts are dropped', async () => {
    const session = new Session();
    const last = session.slice('last', { initial: { text: '' } });
    const note = Tool.create({
      name: 'note',
      description: 'Keeps the last note.',
      params: z.object({ text: z.string() }),
      handler: ({ text }) => {
        last.update((draft) => {
          draft.text = text;
        });
        return ToolResult.ok(null);
      },
    });
    const file = path.join(dir, 'run.jsonl');
    const trace = new TraceRecorder(session, { path: file, maxBytes: 4_096, maxFiles: 3 });
    for (let index = 0; index < 60; index += 1) {
      await invokeTool(note, { text: `note ${index} ${'x'.repeat(40)}` }, { session });
    }
    await trace.close();

    expect((await readdir(dir)).sort()).toEqual(['run.1.jsonl', 'run.2.jsonl', 'run.jsonl']);
    for (const name of ['run.jsonl', 'run.1.jsonl', 'run.2.jsonl']) {
      const text = await readFile(path.join(dir, name), 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4_096);
      const [header, state, ...rest] = text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as TraceRecord);
      // Numbered in the order written: the state so far comes before what follows it.
      const numbered = [state, ...rest].map((record) =>
        record?.kind === 'header' ? 0 : record!.seq,
      );
      expect(numbered).toEqual([...numbered].sort((a, b) => a - b));
      expect(new Set(numbered).size).toBe(numbered.length);
      expect(header).toMatchObject({ kind: 'header', sessionId: session.sessionId });
      expect(header?.kind === 'header' && header.part).toBeGreaterThan(0);
      expect(state).toMatchObject({ kind: 'snapshot', label: 'rotation', full: true });
      expect(state?.kind === 'snapshot' && state.slices).toEqual({
        last: { text: expect.stringMatching(/^note \d+ x+$/) as unknown },
      });
    }
    const loaded = await readTrace(file);
    expect(loaded.truncated).toBe(true);
    const calls = events(loaded.records, 'ToolInvoked');
    // The newest calls survive, in order, up to the last one.
    expect((calls.at(-1)?.fields['params'] as { text: string }).text).toMatch(/^note 59 /);
    const seqs = calls.map((call) => call.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));

    // A new recording at the same path replaces the old one and its parts.
    await new TraceRecorder(new Session(), { path: file }).close();
    expect(await readdir(dir)).toEqual(['run.jsonl']);
  });

  it('reports a file it cannot write from flush and close; the session is untouched', async () => {
    const session = new Session();
    const note = noteTool(session);
    const trace = new TraceRecorder(session, { path: dir }); // a directory, not a file
    const result = await invokeTool(note, { text: 'still works' }, { session });
    expect(result.success).toBe(true);
    await expect(trace.flush()).rejects.toMatchObject({ name: 'TraceError', code: 'trace-write' });
    await expect(trace.close()).rejects.toBeInstanceOf(TraceError);
    expect(trace.error?.message).toContain(JSON.stringify(dir));
  });

  it.each([
    [{ maxBytes: 100 }, 'maxBytes 100 must be an integer of at least 4096 (bytes)'],
    [{ maxFiles: 0 }, 'maxFiles 0 must be a positive integer (the current file counts)'],
    [{ maxTextLength: 10 }, 'maxTextLength 10 must be an integer of at least 64 (characters)'],
    [{ path: '' }, 'path must name the trace file to write, e.g. run.jsonl'],
  ])('refuses the option %j', (options, message) => {
    expect(
      () => new TraceRecorder(new Session(), { path: path.join(dir, 't.jsonl'), ...options }),
    ).toThrow(new TraceError('trace-options', message));
  });
});
