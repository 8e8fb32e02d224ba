/**
 * What a session has seen of each server's tools' reach, by original name,
 * kept for the `Session` object's life across re-listings, reconnects and
 * sections (a second section of the session shares the pooled connection,
 * and must not take a listing the first refused to loosen by): see
 * `BridgeContext.reaches`. A server's history is found by its name and by
 * where it is reached (its command line, its URL, its in-process server):
 * the same server configured under two names in one session is one server,
 * and a listing it sends under the second name after the escalation is not
 * taken at its word. Nothing is stored, so a session with a store reads
 * every listing made while it holds private data as a later one. Two
 * sections that give different servers one name, or reach two names'
 * servers the same way, share their entries, which only makes them
 * stricter.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import {
  httpDeployment,
  type McpTransportConfig,
  type StdioTransportConfig,
} from '../config/server-config.js';
import { resolveCommand } from '../isolation/bubblewrap.js';
import { stricterReach, type ToolReach } from '../isolation/permissions.js';
import type { Session } from '../runtime/session.js';

/** One server's tools' reach, by original name. */
export type Reaches = Map<string, ToolReach>;

/** Each session's histories, under every key they were found by. */
const bySession = new WeakMap<Session, Map<string, Reaches>>();

/** In-process servers, told apart by identity. */
const inProcessIds = new WeakMap<object, number>();
let nextInProcessId = 0;

/**
 * Where `transport` reaches its server, as a key that cannot be a server's
 * name (those hold no NUL).
 */
function transportKey(transport: McpTransportConfig): string {
  switch (transport.type) {
    case 'stdio':
      return `\u0000stdio ${JSON.stringify(commandLineOf(transport))}`;
    case 'sse':
    case 'streamable-http':
      // One deployment however the URL spells it (`localhost` or `127.0.0.1`, a trailing slash).
      return `\u0000http ${httpDeployment(transport.url) ?? transport.url}`;
    case 'in-memory': {
      const server = transport.server as object;
      let id = inProcessIds.get(server);
      if (id === undefined) inProcessIds.set(server, (id = nextInProcessId++));
      return `\u0000in-memory ${id}`;
    }
  }
}

/**
 * A stdio server's command line as the file system resolves it, so that
 * one server is one key however its config spells it: the directory it
 * runs in, the program found on `PATH` (`node` and `process.execPath`
 * alike), and each argument that names an existing file, as real paths.
 */
function commandLineOf(transport: StdioTransportConfig): readonly string[] {
  const cwd = realOrAsIs(path.resolve(transport.cwd ?? process.cwd()));
  const program = resolveCommand(transport.command, process.env['PATH'] ?? '', cwd);
  const args = (transport.args ?? []).map((arg) => {
    const candidate = path.resolve(cwd, arg);
    return existsSync(candidate) ? realOrAsIs(candidate) : arg;
  });
  return [cwd, program?.real ?? transport.command, ...args];
}

function realOrAsIs(place: string): string {
  try {
    return realpathSync(place);
  } catch {
    return place;
  }
}

/**
 * The history of the server `name` reaches through `transport` in
 * `session`, made when there is none, and whether the session had met the
 * server before (under this name or another).
 */
export function reachHistory(
  session: Session,
  name: string,
  transport: McpTransportConfig,
): { readonly reaches: Reaches; readonly seenBefore: boolean } {
  let histories = bySession.get(session);
  if (histories === undefined) {
    histories = new Map<string, Reaches>();
    bySession.set(session, histories);
  }
  const keys = [name, transportKey(transport)];
  const found = [...new Set(keys.map((key) => histories.get(key)).filter((h) => h !== undefined))];
  const reaches = found[0] ?? new Map<string, ToolReach>();
  // Two histories met under one server (two names, then one reached as the
  // other): one, the stricter of both for each tool, under every key of either.
  for (const other of found.slice(1)) {
    for (const [tool, reach] of other) {
      const known = reaches.get(tool);
      reaches.set(tool, known === undefined ? reach : stricterReach(known, reach));
    }
    for (const [key, history] of histories) if (history === other) histories.set(key, reaches);
  }
  for (const key of keys) histories.set(key, reaches);
  return { reaches, seenBefore: found.length > 0 };
}
