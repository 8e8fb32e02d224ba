/**
 * The isolation walkthrough: `npm run example:isolation`.
 *
 * Starts the template server twice on two 127.0.0.1 ports — a normal
 * instance and an "isolated" one (in production: the same image on a
 * network with no route out) sharing one workspace — then drives an
 * `McpIntegrationSection` through the steps of the design and prints each:
 * a file written and read on the normal instance, a retryable error, the
 * sensitive dataset loaded, and the next call answered by the isolated
 * instance, with network tools now refused.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  loadMcpConfig,
  McpIntegrationSection,
  McpSectionIsolated,
  SensitivityEscalated,
  Session,
  ToolInvoked,
} from '../../src/index.js';
import { signIdentityToken } from '../../src/server/index.js';

const serverScript = fileURLToPath(new URL('./server.ts', import.meta.url));

interface Instance {
  readonly url: string;
  readonly child: ChildProcess;
}

/** Starts one instance on a free loopback port and waits for its URL. */
function startInstance(name: string, env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', serverScript], {
    env: { ...process.env, ...env, INSTANCE: name, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`instance ${name} did not start in 20 s`)),
      20_000,
    );
    child.once('exit', (code) =>
      reject(new Error(`instance ${name} exited with code ${String(code)}`)),
    );
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const url = /listening on (\S+)/.exec(output)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve({ url, child });
      }
    });
  });
}

async function stopInstance(instance: Instance | undefined): Promise<void> {
  if (instance === undefined || instance.child.exitCode !== null) return;
  const exited = new Promise((resolve) => instance.child.once('exit', resolve));
  instance.child.kill('SIGTERM');
  await exited;
}

const step = (n: number, text: string): void => console.log(`\n── Step ${n}: ${text}`);

const shared = await mkdtemp(join(tmpdir(), 'mcp-sections-walkthrough-'));
const secret = randomBytes(32).toString('hex');
const env = {
  JWT_SECRET: secret,
  WORKSPACE_ROOT: join(shared, 'workspace'),
  PRIVATE_DATA_DIR: join(shared, 'private-data'),
};
let normal: Instance | undefined;
let isolated: Instance | undefined;
let section: McpIntegrationSection | undefined;

try {
  [normal, isolated] = await Promise.all([
    startInstance('normal', env),
    startInstance('isolated', env),
  ]);
  console.log(`normal instance:   ${normal.url}\nisolated instance: ${isolated.url}`);

  const session = new Session();
  const token = await signIdentityToken(
    { userId: 'alice', sessionId: session.sessionId },
    { secret },
  );
  session.bus.subscribe(ToolInvoked, (e) =>
    console.log(`   [ToolInvoked] ${e.toolName} → ${e.result.success ? 'ok' : 'error'}`),
  );
  session.bus.subscribe(SensitivityEscalated, (e) =>
    console.log(`   [SensitivityEscalated] ${e.previous} → ${e.sensitivity} (${e.dataset})`),
  );
  session.bus.subscribe(McpSectionIsolated, (e) =>
    console.log(`   [McpSectionIsolated] ${e.serverName} now uses its ${e.mode}`),
  );

  // The client config the deployment ships, pointed at the two instances.
  const servers = await loadMcpConfig(fileURLToPath(new URL('./config.yaml', import.meta.url)), {
    env: {
      TEMPLATE_URL: normal.url,
      TEMPLATE_URL_ISOLATED: isolated.url,
      TEMPLATE_TOKEN: token,
    },
    dotenv: false,
  });
  section = new McpIntegrationSection({ session, servers });
  await section.connect();
  const call = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const result = await section!.execute({ name: `template.${name}`, arguments: args });
    return `${result.success ? 'ok' : 'error'}: ${result.message}`;
  };

  step(1, 'who answers before any private data?');
  console.log(`   ${await call('whoami', {})}`);

  step(2, 'write a file and read it back on the normal instance');
  console.log(
    `   ${await call('write_file', { path: '/workspace/notes.txt', content: 'Quarterly plan, draft 1' })}`,
  );
  console.log(`   ${await call('read_file', { path: '/workspace/notes.txt' })}`);

  step(3, 'a retryable error: an empty search');
  console.log(`   ${await call('search_records', { query: '' })}`);

  step(4, 'load the sensitive dataset (the server marks the session)');
  console.log(
    `   ${(await call('load_sensitive_dataset', { name: 'patient_records' })).split('\n')[0] ?? ''} …`,
  );
  console.log(
    `   session sensitivity: ${session.privateData.sensitivity}; section isolated: ${String(section.isolated)}`,
  );

  step(5, 'the next call is answered by the isolated instance');
  console.log(`   ${await call('whoami', {})}`);
  console.log(`   ${await call('read_file', { path: '/workspace/notes.txt' })}`);

  step(6, 'a tool that connects outward is now refused before it reaches any server');
  console.log(`   ${await call('fetch_url', { url: 'https://example.com/' })}`);
} finally {
  await section?.disconnect();
  await Promise.all([stopInstance(normal), stopInstance(isolated)]);
  await rm(shared, { recursive: true, force: true });
}
