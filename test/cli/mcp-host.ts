/**
 * In-process MCP servers for the CLI unit tests: a stateless streamable-HTTP
 * endpoint on 127.0.0.1 serving tools whose schemas the test controls, a
 * config file pointing at it, and a `CliIo`/`Progress` that record output.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CommandContext } from '../../src/cli/commands.js';
import type { CliIo } from '../../src/cli/io.js';
import type { Progress } from '../../src/cli/spinner.js';
import {
  rawToolServer,
  startHttpHost,
  type HttpHost,
  type RawTool,
} from '../support/mcp-fixtures.js';
import { repo } from './helpers.js';

/** A stateless streamable-HTTP MCP endpoint at /mcp serving `tools`: one SDK server per POST. */
export function startToolHost(tools: readonly RawTool[]): Promise<HttpHost> {
  return startHttpHost(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.startsWith('/mcp')) {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const { server } = rawToolServer(tools);
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
}

/** A tool host, and a config file that names it as `srv` with a secret. */
export interface SecretHost {
  readonly host: HttpHost;
  readonly dir: ConfigDir;
  /** The path of `servers.json`: `srv` over HTTP, with `Authorization: Bearer <token>`. */
  readonly config: string;
  /** Stops the host and removes the config's directory. */
  close(): Promise<void>;
}

/** Starts a host of `tools` and writes a config that reaches it with `token` as its bearer. */
export async function hostWithToken(
  tools: readonly RawTool[],
  prefix: string,
  token: string,
): Promise<SecretHost> {
  const host = await startToolHost(tools);
  const dir = await configDir(prefix);
  const config = await dir.write('servers.json', {
    srv: { type: 'http', url: host.url('/mcp'), headers: { Authorization: `Bearer ${token}` } },
  });
  return {
    host,
    dir,
    config,
    close: async () => {
      await host.close();
      await dir.remove();
    },
  };
}

/** A directory under the repository's `.tmp/` for config files. */
export interface ConfigDir {
  readonly dir: string;
  /** Writes `mcpServers` as `<name>` and returns its path. */
  write(name: string, mcpServers: Record<string, unknown>): Promise<string>;
  remove(): Promise<void>;
}

export async function configDir(prefix: string): Promise<ConfigDir> {
  const dir = path.join(repo, '.tmp', `${prefix}-${randomUUID()}`);
  await mkdir(dir, { recursive: true });
  return {
    dir,
    write: async (name, mcpServers) => {
      const file = path.join(dir, name);
      await writeFile(file, JSON.stringify({ mcpServers }));
      return file;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A `CliIo` that keeps what was written. */
export interface CapturedIo extends CliIo {
  readonly out: () => string;
  readonly err: () => string;
}

export function captureIo(
  options: { stdin?: AsyncIterable<string | Uint8Array>; env?: Record<string, string> } = {},
): CapturedIo {
  let out = '';
  let err = '';
  return {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text), isTTY: false },
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    env: options.env ?? {},
    out: () => out,
    err: () => err,
  };
}

/** A `Progress` that keeps its calls. */
export type RecordedProgress = Progress & { readonly calls: string[] };

/** A `Progress` that records its calls as `start: text` and `stop`. */
export function recordProgress(): RecordedProgress {
  const calls: string[] = [];
  return {
    calls,
    start: (text) => calls.push(`start: ${text}`),
    stop: (text) => calls.push(text === undefined ? 'stop' : `stop: ${text}`),
  };
}

/** The context a command runs with in a test: `io` (a fresh capture by default), recorded progress, no abort. */
export function commandContext(
  io: CapturedIo = captureIo(),
  json = false,
): CommandContext & { readonly progress: RecordedProgress } {
  return { io, progress: recordProgress(), signal: new AbortController().signal, json };
}
