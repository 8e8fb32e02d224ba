import { describe, expect, it } from 'vitest';
import {
  McpNetworkDenied,
  McpServerDisconnected,
  McpServerLog,
  McpServerUnavailable,
  McpToolProgress,
  McpToolsChanged,
  McpToolTimedOut,
  PrivateDataMarkerMalformed,
  PromptExecuted,
  PromptRendered,
  SensitivityEscalated,
  ToolInvoked,
} from '../../src/index.js';
import {
  WITHHELD_PRIVATE,
  WITHHELD_SCHEMA_REASONS,
  WITHHELD_SERVER_TEXT,
  configuredDatasets,
  withholdPrivate,
} from '../../src/ecosystem/withhold-private.js';

const at = new Date(0);

describe('withholdPrivate', () => {
  it("leaves out the model's answer and what was parsed from it", () => {
    const kept = withholdPrivate(PromptExecuted.name, {
      ns: 'demo',
      key: 'ask',
      adapter: 'openai-chat',
      turns: 2,
      text: 'Ada earns 91k',
      output: { salary: '91k' },
      sessionId: 's',
      createdAt: at,
    });
    expect(kept).toEqual({
      ns: 'demo',
      key: 'ask',
      adapter: 'openai-chat',
      turns: 2,
      sessionId: 's',
      createdAt: at,
      withheld: WITHHELD_PRIVATE,
    });
  });

  it("leaves out a server's log and progress messages, keeping who and when", () => {
    const log = withholdPrivate(McpServerLog.name, {
      serverName: 'crm',
      level: 'info',
      message: 'fetched row Ada 91k',
      createdAt: at,
    });
    expect(log).toEqual({
      serverName: 'crm',
      level: 'info',
      createdAt: at,
      withheld: 'private-data',
    });
    const progress = withholdPrivate(McpToolProgress.name, {
      toolName: 'crm_get',
      progress: 1,
      message: 'read Ada',
    });
    expect(progress).toEqual({ toolName: 'crm_get', progress: 1, withheld: 'private-data' });
  });

  it("replaces a rendered prompt's text with a note, and a result with its outcome", () => {
    expect(withholdPrivate(PromptRendered.name, { key: 'k', text: 'Ada earns 91k' })).toEqual({
      key: 'k',
      text: expect.stringMatching(/^\[left out: the session held private data/) as unknown,
      withheld: 'private-data',
    });
    expect(
      withholdPrivate(ToolInvoked.name, {
        toolName: 't',
        result: { success: true, message: 'Ada earns 91k', value: 91 },
      }),
    ).toEqual({ toolName: 't', result: { success: true, withheld: 'private-data' } });
  });

  it("keeps only who and when of an event it does not know, such as an application's own", () => {
    const kept = withholdPrivate('CustomerLoaded', {
      sessionId: 's',
      callId: 'c',
      createdAt: at,
      customer: { name: 'Ada', salary: 91 },
    });
    expect(kept).toEqual({ sessionId: 's', callId: 'c', createdAt: at, withheld: 'private-data' });
  });

  it('keeps whole the events the library writes from names, levels and counts', () => {
    const fields = { sessionId: 's', serverName: 'crm', timeoutMs: 5, callId: 'c' };
    expect(withholdPrivate(McpToolTimedOut.name, fields)).toBe(fields);
    const changed = { serverName: 'crm', added: ['crm_b'], removed: [], toolNames: ['crm_b'] };
    expect(withholdPrivate(McpToolsChanged.name, changed)).toBe(changed);
  });

  it("replaces the server's words in reasons, dataset names and a log's logger", () => {
    expect(
      withholdPrivate(SensitivityEscalated.name, {
        previous: 'confidential',
        sensitivity: 'secret',
        dataset: 'SSN-1',
      }),
    ).toEqual({
      previous: 'confidential',
      sensitivity: 'secret',
      dataset: WITHHELD_SERVER_TEXT,
      withheld: 'private-data',
    });
    expect(
      withholdPrivate(PrivateDataMarkerMalformed.name, {
        serverName: 'crm',
        callId: 'c',
        reason: 'the marker is "SSN-1", not an object',
        sensitivity: 'confidential',
      }),
    ).toEqual({
      serverName: 'crm',
      callId: 'c',
      reason: WITHHELD_SERVER_TEXT,
      sensitivity: 'confidential',
      withheld: 'private-data',
    });
    expect(
      withholdPrivate(McpServerLog.name, {
        serverName: 'crm',
        level: 'warning',
        logger: 'SSN-1',
        message: 'x',
      }),
    ).toEqual({ serverName: 'crm', level: 'warning', withheld: 'private-data' });
    for (const type of [McpServerUnavailable.name, McpServerDisconnected.name]) {
      expect(
        withholdPrivate(type, { serverName: 'crm', reason: 'exited (server stderr: SSN-1)' }),
      ).toEqual({ serverName: 'crm', reason: WITHHELD_SERVER_TEXT, withheld: 'private-data' });
    }
    expect(
      withholdPrivate(McpNetworkDenied.name, {
        serverName: 'crm',
        host: 'ssn-1.example',
        port: 443,
        reason: 'ssn-1.example:443 is not on the allow-list of this sandbox (empty)',
      }),
    ).toEqual({
      serverName: 'crm',
      host: WITHHELD_SERVER_TEXT,
      port: 443,
      reason: WITHHELD_SERVER_TEXT,
      withheld: 'private-data',
    });
  });

  it("keeps a dataset the configuration names (a server's sensitiveTools)", () => {
    const datasets = configuredDatasets([
      {
        name: 'crm',
        transport: { type: 'stdio', command: 'crm' },
        sensitiveTools: { get: 'confidential' },
      },
    ]);
    expect([...datasets]).toEqual(['crm.get']);
    const fields = { previous: 'public', sensitivity: 'confidential', dataset: 'crm.get' };
    expect(withholdPrivate(SensitivityEscalated.name, fields, { datasets })).toBe(fields);
    expect(
      withholdPrivate(SensitivityEscalated.name, { ...fields, dataset: 'SSN-1' }, { datasets })[
        'dataset'
      ],
    ).toBe(WITHHELD_SERVER_TEXT);
  });

  it('gives the same fields for fields it has withheld already (a stream masked as written)', () => {
    const once = withholdPrivate(SensitivityEscalated.name, {
      sensitivity: 'secret',
      dataset: 'x',
    });
    expect(withholdPrivate(SensitivityEscalated.name, once)).toEqual(once);
    const call = withholdPrivate(
      ToolInvoked.name,
      failedCall('tool "get" of server "crm" was cancelled: stop'),
    );
    expect(withholdPrivate(ToolInvoked.name, call)).toEqual(call);
  });
});

/** A bridged call to `crm_get` (`get` on server `crm`) that failed with `message`. */
function failedCall(
  message: string,
  value: unknown = null,
  names: { toolName?: string; originalName?: string } = {},
): Record<string, unknown> {
  return {
    toolName: names.toolName ?? 'crm_get',
    originalName: names.originalName ?? 'get',
    mcpServer: 'crm',
    source: 'mcp',
    callId: 'c',
    result: { success: false, message, value },
  };
}

function keptMessage(fields: Record<string, unknown>): unknown {
  return (withholdPrivate(ToolInvoked.name, fields)['result'] as { message?: unknown }).message;
}

describe("withholdPrivate: a bridged call's failure", () => {
  it("withholds the server's isError text, keeping the outcome", () => {
    const fields = failedCall('lookup failed near SSN-1', {
      content: [{ type: 'text', text: 'x' }],
    });
    expect(withholdPrivate(ToolInvoked.name, fields)['result']).toEqual({
      success: false,
      message: WITHHELD_SERVER_TEXT,
      withheld: 'private-data',
    });
  });

  it('withholds what quotes the server: JSON-RPC errors, transport errors, output violations', () => {
    for (const message of [
      'server "crm" refused tool "get" (JSON-RPC error -32603): SSN-1',
      'tool "get" of server "crm" failed: HTTP 500: SSN-1',
      'server "crm" (stdio): cannot connect: exited (server stderr: SSN-1)',
      'tool "get" of server "crm" returned structuredContent that does not match its outputSchema: id: SSN-1',
    ]) {
      expect(keptMessage(failedCall(message))).toBe(WITHHELD_SERVER_TEXT);
    }
  });

  it("keeps the library's own refusals, timeouts and cancellations", () => {
    for (const message of [
      'tool "crm_get" was not started: the call\'s deadline passed',
      'tool "crm_get" is blocked: the session holds private data, its server has no isolation',
      'tool "get" of server "crm" was not called: the session store could not be read',
      'tool "get" of server "crm" was cancelled: the user stopped',
      'tool "get" of server "crm" timed out after 5000 ms',
      'tool "get" of server "crm" timed out after 5000 ms (its progress was not asked for, as nothing observes McpToolProgress: set maxTotalTimeoutMs to let progress reports extend the timeout)',
      'tool "get" of server "crm" reported progress but did not finish within maxTotalTimeoutMs (9000 ms)',
      'tool "get" of server "crm" lost its connection: Connection closed; retried once',
      'tool "get" of server "crm" lost its connection: Connection closed (the server sent a line of more than 10485760 bytes, the most a stdio connection reads)',
      'server "crm" was not connected again within 300 ms',
    ]) {
      expect(keptMessage(failedCall(message))).toBe(message);
    }
    const denied = {
      ...failedCall('approval refused: SSN-1 looks private'),
      denial: { policy: 'p', reason: 'r' },
    };
    expect(keptMessage(denied)).toBe('approval refused: SSN-1 looks private');
  });

  it("keeps a refusal of the arguments, but not its reasons: they quote the server's schema", () => {
    for (const reasons of [
      'mode: "mode" must be "PATIENT-Jane-Roe"',
      'id: does not match the pattern "^PATIENT-Jane-Roe$"',
      '(arguments): the tool\'s input schema cannot be used: $ref "https://x.invalid/PATIENT-Jane-Roe" is not local',
    ]) {
      expect(keptMessage(failedCall(`invalid arguments for tool "crm_get": ${reasons}`))).toBe(
        `invalid arguments for tool "crm_get": ${WITHHELD_SCHEMA_REASONS}`,
      );
    }
    // Another tool's name in the wording is the server's text, withheld whole.
    expect(keptMessage(failedCall('invalid arguments for tool "crm_other": x: SSN-1'))).toBe(
      WITHHELD_SERVER_TEXT,
    );
    // A native tool's schema is the application's: its reasons stay.
    const native = {
      toolName: 'note',
      source: 'native',
      result: {
        success: false,
        message: 'invalid arguments for tool "note": x: SSN-1',
        value: null,
      },
    };
    expect(keptMessage(native)).toBe('invalid arguments for tool "note": x: SSN-1');
  });

  it('keeps an original name only when it is an identifier, in every event that carries one', () => {
    const sentence = 'Jane Roe, born 1970-01-02, SSN 078-05-1120';
    const long = 'x'.repeat(129);
    for (const originalName of [sentence, long, 'name\nwith a break', '']) {
      const invoked = withholdPrivate(ToolInvoked.name, {
        ...failedCall('tool "x" of server "crm" was cancelled: stop'),
        originalName,
      });
      expect(invoked['originalName']).toBe(WITHHELD_SERVER_TEXT);
      const timedOut = withholdPrivate(McpToolTimedOut.name, {
        sessionId: 's',
        serverName: 'crm',
        toolName: 'crm_x',
        originalName,
        callId: 'c',
        timeoutMs: 5,
        createdAt: at,
      });
      expect(timedOut).toMatchObject({
        originalName: WITHHELD_SERVER_TEXT,
        withheld: WITHHELD_PRIVATE,
      });
    }
    for (const originalName of ['get', 'search.v2', 'a-b_c', 'x'.repeat(128)]) {
      const fields = { ...failedCall('tool "x" was not started: stop'), originalName };
      expect(withholdPrivate(ToolInvoked.name, fields)['originalName']).toBe(originalName);
    }
  });

  it('does not let a server make its words read like a refusal', () => {
    // As an isError answer: it carries its content.
    const answered = failedCall('tool "crm_get" is blocked: SSN-1', { content: [] });
    expect(keptMessage(answered)).toBe(WITHHELD_SERVER_TEXT);
    // Through a tool name with quotes, in a transport error's wording.
    const original = 'get" of server "crm" timed out after 5 ms';
    const named = failedCall(`tool "${original}" of server "crm" failed: SSN-1`, null, {
      originalName: original,
    });
    expect(keptMessage(named)).toBe(WITHHELD_SERVER_TEXT);
    // A timeout's wording with more after it.
    expect(keptMessage(failedCall('tool "get" of server "crm" timed out after 5 ms: SSN-1'))).toBe(
      WITHHELD_SERVER_TEXT,
    );
  });

  it("keeps a native tool's failure: the application wrote it", () => {
    const fields = {
      toolName: 'note',
      source: 'native',
      result: { success: false, message: 'failed', value: null },
    };
    expect(keptMessage(fields)).toBe('failed');
  });
});
