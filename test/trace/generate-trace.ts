/**
 * A large synthetic trace, written as TraceRecorder writes one: for the
 * viewer's scale test and `bench/trace-viewer.ts`. Calls spread over five
 * servers and every outcome, with a rise of sensitivity halfway.
 */
import { writeFile } from 'node:fs/promises';
import { TRACE_FORMAT_VERSION, type TraceRecord } from '../../src/index.js';

const SERVERS = ['github', 'jira', 'search', 'files', 'crm'];

/** Writes a trace of `calls` tool calls to `file`. */
export async function writeLargeTrace(file: string, calls: number): Promise<void> {
  const sessionId = 'generated-session';
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  const lines: TraceRecord[] = [
    {
      kind: 'header',
      trace: 'mcp-sections',
      version: TRACE_FORMAT_VERSION,
      sessionId,
      at: new Date(start).toISOString(),
      part: 0,
      sensitivity: 'public',
      privateResults: false,
    },
  ];
  let seq = 0;
  const event = (at: number, type: string, fields: Record<string, unknown>): void => {
    seq += 1;
    lines.push({ kind: 'event', seq, at: new Date(at).toISOString(), type, fields });
  };
  for (const server of SERVERS) {
    event(start, 'McpServerConnected', {
      sessionId,
      serverName: server,
      transport: 'stdio',
      endpoint: 'normal',
      toolCount: 3,
      reconnect: false,
      createdAt: new Date(start).toISOString(),
    });
  }
  for (let index = 0; index < calls; index += 1) {
    const at = start + 10 + index * 20;
    const server = SERVERS[index % SERVERS.length]!;
    const callId = `call-${index + 1}`;
    const kind = index % 10;
    const durationMs = 2 + ((index * 7) % 15);
    if (index === Math.floor(calls / 2)) {
      event(at, 'SensitivityEscalated', {
        sessionId,
        previous: 'public',
        sensitivity: 'confidential',
        dataset: 'crm.customers',
        createdAt: new Date(at).toISOString(),
      });
    }
    if (kind === 9) {
      event(at + durationMs, 'McpToolTimedOut', {
        sessionId,
        serverName: server,
        toolName: `${server}_lookup`,
        originalName: 'lookup',
        callId,
        timeoutMs: durationMs,
        createdAt: new Date(at + durationMs).toISOString(),
      });
    }
    const message =
      kind === 7
        ? `invalid arguments for tool "${server}_lookup": id: expected number`
        : kind === 8
          ? `tool "lookup" of server "${server}" failed: not found`
          : kind === 9
            ? `tool "lookup" of server "${server}" timed out after ${durationMs} ms`
            : `found item ${index + 1}`;
    event(at, 'ToolInvoked', {
      toolName: `${server}_lookup`,
      params: { id: index + 1, query: `item ${index + 1}` },
      result: { message, value: kind < 7 ? { id: index + 1 } : null, success: kind < 7 },
      source: 'mcp',
      mcpServer: server,
      originalName: 'lookup',
      callId,
      sessionId,
      createdAt: new Date(at).toISOString(),
      durationMs,
    });
  }
  await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
}
