/**
 * The first program in the sandbox: our code, never server text. It runs
 * as `node -e SANDBOX_LAUNCHER <socket> <port> <command> <args…>` and:
 * - closes every file descriptor it inherited above stderr that would pass
 *   on to the server (those not close-on-exec). Neither Node's `spawn` nor
 *   bubblewrap closes them, so a descriptor the agent's own parent left
 *   open (a listener's socket, a directory of the host's home, a
 *   supervisor's pipe) reached the sandboxed server, which wrote to the
 *   host's loopback and read the host's home through `/proc/self/fd`;
 * - on the allow-list tier (a `socket` is given), listens on the sandbox's
 *   own 127.0.0.1:<port> and hands every connection to the egress proxy's
 *   unix socket, which `HTTP(S)_PROXY` point at;
 * - runs the server with its stdio passed through, passes on the signals
 *   that stop it, and ends as it ends.
 */
export const SANDBOX_LAUNCHER = [
  "const fs = require('node:fs');",
  "const net = require('node:net');",
  "const { spawn } = require('node:child_process');",
  "for (const name of fs.readdirSync('/proc/self/fd')) {",
  '  const fd = Number(name);',
  '  if (!(fd > 2)) continue;',
  '  let flags = null;',
  '  try {',
  '    flags = /^flags:\\s*([0-7]+)/m.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));',
  '  } catch {}',
  '  // O_CLOEXEC: the server would not get it. Unsure, closed.',
  '  if (flags === null || (parseInt(flags[1], 8) & 0o2000000) === 0) {',
  '    try { fs.closeSync(fd); } catch {}',
  '  }',
  '}',
  'const [socket, port, command, ...args] = process.argv.slice(1);',
  'const run = () => {',
  "  const child = spawn(command, args, { stdio: 'inherit' });",
  "  child.on('error', () => process.exit(127));",
  "  child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));",
  "  for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(name, () => child.kill(name));",
  '};',
  "if (socket === '') run();",
  'else {',
  '  const server = net.createServer((client) => {',
  '    const upstream = net.connect(socket);',
  '    client.pipe(upstream).pipe(client);',
  "    client.on('error', () => upstream.destroy());",
  "    upstream.on('error', () => client.destroy());",
  '  });',
  "  server.listen(Number(port), '127.0.0.1', run);",
  '}',
].join('\n');
