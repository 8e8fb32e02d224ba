#!/usr/bin/env node
/**
 * The `mcp-sections` executable. See `run.ts` for the commands and
 * `exit-codes.ts` for what the exit status means.
 */
import { killServerGroupsSync } from '../mcp/process-tree.js';
import { EXIT_CODES } from './exit-codes.js';
import { installFetchDiagnostics } from './network-errors.js';
import { runCli } from './run.js';

// `fetch failed` alone names no host, port or cause: say ECONNREFUSED and where.
installFetchDiagnostics();

// Stdio servers run in process groups of their own (so a closed terminal does
// not reach them): an exit that skips the disconnect must end them itself.
process.on('exit', killServerGroupsSync);

const controller = new AbortController();
let interrupts = 0;
const onSignal = (signal: NodeJS.Signals): void => {
  interrupts += 1;
  // A second signal means "now": the first one is already disconnecting.
  // Exiting runs the 'exit' handler above, which kills the servers' groups.
  if (interrupts > 1) process.exit(EXIT_CODES.interrupted);
  controller.abort(new Error(`received ${signal}`));
};
// SIGHUP: the terminal closed. SIGQUIT: Ctrl-\. Without a handler, either
// would end this process at once and leave its servers running.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const) {
  process.on(signal, onSignal);
}
// A closed pipe (`mcp-sections inspect cfg.json | head`) is not an error of ours.
process.stdout.on('error', () => undefined);

const code = await runCli(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env },
  { signal: controller.signal },
);
await Promise.all([flush(process.stdout), flush(process.stderr)]);
// Servers are disconnected by now; exit without waiting for idle sockets to time out.
process.exit(code);

function flush(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.writableLength === 0) resolve();
    else stream.write('', () => resolve());
  });
}
