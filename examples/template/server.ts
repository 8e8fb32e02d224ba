/**
 * The template MCP server, runnable as `tsx examples/template/server.ts`.
 *
 * Environment:
 * - `JWT_SECRET` (required, at least 32 bytes): HS256 secret of the bearer tokens.
 * - `PORT` (default 8000; 0 picks a free port), `HOST` (default 127.0.0.1).
 * - `INSTANCE` (default `normal`): reported by `whoami`; `isolated` for the
 *   deployment without network.
 * - `WORKSPACE_ROOT` (default `.tmp/template/workspace`) and
 *   `PRIVATE_DATA_DIR` (default `.tmp/template/private-data`): shared by
 *   both deployments, so the isolated one sees the same files and flags.
 *
 * Prints `listening on <url>` once ready; stops cleanly on SIGINT/SIGTERM.
 */
import path from 'node:path';
import { createMcpServer, serveHttp } from '../../src/server/index.js';
import { registerTemplateTools } from './tools.js';

function setting(name: string, fallback?: string): string {
  const value = process.env[name];
  if (value !== undefined && value !== '') return value;
  if (fallback !== undefined) return fallback;
  console.error(`template server: environment variable ${name} is required`);
  process.exit(2);
}

const instance = setting('INSTANCE', 'normal');
const host = setting('HOST', '127.0.0.1');
const portText = setting('PORT', '8000');
const port = Number(portText);
if (!/^\d+$/.test(portText) || port > 65_535) {
  console.error(
    `template server: PORT must be an integer from 0 to 65535, got ${JSON.stringify(portText)}`,
  );
  process.exit(2);
}
const workspaceRoot = path.resolve(setting('WORKSPACE_ROOT', '.tmp/template/workspace'));
const privateDataDir = path.resolve(setting('PRIVATE_DATA_DIR', '.tmp/template/private-data'));
const secret = setting('JWT_SECRET');

/** One server per MCP session: an SDK server serves one connection at a time. */
function buildServer() {
  const server = createMcpServer('template', {
    title: `Template server (instance: ${instance})`,
    instructions: 'Template MCP server: workspace files, sample records and a sensitive dataset.',
    workspaceRoot,
    privateDataDir,
    serverOptions: { capabilities: { logging: {} } },
  });
  registerTemplateTools(server, { instance });
  return server;
}

const http = await serveHttp(buildServer, { port, host, auth: { secret } });
console.log(`template server (instance ${instance}) listening on ${http.url}`);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`template server (instance ${instance}) stopping on ${signal}`);
  await http.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
