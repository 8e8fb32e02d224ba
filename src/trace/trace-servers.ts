/** The servers of a trace, from the events that name them, the tool lists and the calls. */
import type { CallView, EventView } from './trace-model.js';
import type { TraceRecord } from './trace-format.js';

/** A tool of a server, as the trace knows it. */
export interface ServerToolView {
  /** The bridged name the model saw. */
  readonly name: string;
  readonly originalName?: string;
  readonly description?: string;
  readonly calls: number;
  readonly failures: number;
}

/** One MCP server of the trace. */
export interface ServerView {
  readonly name: string;
  readonly transport?: string;
  /** Its last known state. */
  readonly status: 'connected' | 'unavailable' | 'disconnected' | 'isolation-failed' | 'unknown';
  /** Why it is unavailable, disconnected or failed closed. */
  readonly reason?: string;
  /** How its calls were isolated, once they were (`endpoint` or `sandbox`). */
  readonly isolation?: string;
  readonly tools: readonly ServerToolView[];
  /** Seqs of the events that name it. */
  readonly events: readonly number[];
}

interface Building {
  name: string;
  transport?: string;
  status: ServerView['status'];
  reason?: string;
  isolation?: string;
  tools: Map<
    string,
    { originalName?: string; description?: string; calls: number; failures: number }
  >;
  events: number[];
}

/** Every server named by an event, a tool list or a call, in order of first appearance. */
export function buildServers(
  events: readonly EventView[],
  calls: readonly CallView[],
  records: readonly TraceRecord[],
): ServerView[] {
  const servers = new Map<string, Building>();
  const server = (name: string): Building => {
    let found = servers.get(name);
    if (found === undefined) {
      found = { name, status: 'unknown', tools: new Map(), events: [] };
      servers.set(name, found);
    }
    return found;
  };
  const tool = (
    owner: Building,
    name: string,
  ): NonNullable<ReturnType<Building['tools']['get']>> => {
    let found = owner.tools.get(name);
    if (found === undefined) {
      found = { calls: 0, failures: 0 };
      owner.tools.set(name, found);
    }
    return found;
  };
  for (const record of records) {
    if (record.kind !== 'tools') continue;
    for (const info of record.tools) {
      if (info.server === undefined) continue;
      const entry = tool(server(info.server), info.name);
      if (info.description !== undefined) entry.description = info.description;
      if (info.originalName !== undefined) entry.originalName = info.originalName;
    }
  }
  for (const event of events) {
    if (event.server === undefined) continue;
    const owner = server(event.server);
    if (event.type !== 'ToolInvoked') owner.events.push(event.seq);
    const { fields } = event;
    const reason = typeof fields['reason'] === 'string' ? fields['reason'] : undefined;
    switch (event.type) {
      case 'McpServerConnected':
        if (fields['endpoint'] !== 'isolated') {
          owner.status = 'connected';
          delete owner.reason;
        }
        if (typeof fields['transport'] === 'string') owner.transport = fields['transport'];
        break;
      case 'McpServerUnavailable':
        owner.status = 'unavailable';
        if (reason !== undefined) owner.reason = reason;
        if (typeof fields['transport'] === 'string') owner.transport = fields['transport'];
        break;
      case 'McpServerDisconnected':
        if (fields['expected'] !== true) {
          owner.status = 'disconnected';
          if (reason !== undefined) owner.reason = reason;
        }
        break;
      case 'McpSectionIsolated':
        if (typeof fields['mode'] === 'string') owner.isolation = fields['mode'];
        break;
      case 'McpIsolationFailed':
        owner.status = 'isolation-failed';
        if (reason !== undefined) owner.reason = reason;
        break;
      case 'McpToolsChanged':
        if (Array.isArray(fields['toolNames'])) {
          for (const name of fields['toolNames']) if (typeof name === 'string') tool(owner, name);
        }
        break;
      default:
        break;
    }
  }
  for (const call of calls) {
    if (call.server === undefined) continue;
    const entry = tool(server(call.server), call.tool);
    entry.calls += 1;
    if (call.outcome !== 'success') entry.failures += 1;
    if (call.originalName !== undefined) entry.originalName = call.originalName;
  }
  return [...servers.values()].map((building) => ({
    name: building.name,
    ...(building.transport === undefined ? {} : { transport: building.transport }),
    status: building.status,
    ...(building.reason === undefined ? {} : { reason: building.reason }),
    ...(building.isolation === undefined ? {} : { isolation: building.isolation }),
    tools: [...building.tools].map(([name, info]) => ({ name, ...info })),
    events: building.events,
  }));
}
