/**
 * The sandbox tried as an attacker would, on this host as it is (root here):
 * after escalation a sandboxed stdio server attempts every way out we know
 * of, and each must fail while its workspace still works. Before escalation,
 * a stdio server gets the safe default environment, not the parent's.
 */
import { randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpIntegrationSection, McpNetworkDenied, Session } from '../../src/index.js';
import { SANDBOX_HOME } from '../../src/isolation/bubblewrap.js';
import { sandboxSupport } from '../../src/isolation/sandbox.js';
import {
  call,
  collect,
  type CountingListener,
  countingListener,
  jsonOf,
  probeSection,
} from '../fixtures/isolation/helpers.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';

const support = sandboxSupport();

/** `ENOSYS`: what the sandbox's syscall filter answers a keyring call with. */
const ENOSYS = 38;

/** What the probe server's `keyring` tool reports: each call's result and errno. */
interface KeyringProbe {
  readonly keyctl: { readonly result: number; readonly errno: number };
  readonly add_key?: { readonly result: number; readonly errno: number };
  readonly request_key?: { readonly result: number; readonly errno: number };
}
const SECRET_NAME = 'MCP_SECTIONS_TEST_PARENT_SECRET';
const SECRET_VALUE = `parent-${randomBytes(8).toString('hex')}`;

interface EnvReport {
  readonly keys: readonly string[];
  readonly values: Readonly<Record<string, string | null>>;
}

describe('stdio environment before any escalation', () => {
  let workdir: string;
  beforeAll(async () => {
    workdir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-env-'));
    process.env[SECRET_NAME] = SECRET_VALUE;
  });
  afterAll(async () => {
    delete process.env[SECRET_NAME];
    await rm(workdir, { recursive: true, force: true });
  });

  it.each([
    ['the safe default plus declared env', false],
    ['the whole parent environment with inheritEnv: true', true],
  ])('gives a stdio server %s', async (_label, inheritEnv) => {
    const before = childPids();
    const section = probeSection(new Session(), workdir, {
      env: { DECLARED_VAR: 'declared' },
      inheritEnv,
    });
    try {
      await section.connect();
      const report = jsonOf<EnvReport>(
        await call(section, 'probe_env', { names: [SECRET_NAME, 'DECLARED_VAR', 'PATH'] }),
      );
      expect(report.values['DECLARED_VAR']).toBe('declared');
      expect(report.values['PATH']).not.toBeNull();
      expect(report.values[SECRET_NAME]).toBe(inheritEnv ? SECRET_VALUE : null);
    } finally {
      await section.disconnect();
    }
    expect(await expectNoNewChildren(before)).toEqual([]);
  });
});

describe.runIf(support.backend === 'bubblewrap')(
  'a sandboxed stdio server after escalation',
  () => {
    let workdir: string;
    let socketDir: string;
    let hostFile: string;
    let tcp: CountingListener;
    let unix: CountingListener;
    let section: McpIntegrationSection;
    let before: number[];
    /** What the unsandboxed server got of the kernel keyring. */
    let keyringOutside: KeyringProbe;

    beforeAll(async () => {
      before = childPids();
      process.env[SECRET_NAME] = SECRET_VALUE;
      workdir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-sandbox-ws-'));
      socketDir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-host-sockets-'));
      // A credential in the host's home, to be read by absolute path if the sandbox lets it.
      hostFile = path.join(
        homedir(),
        `.mcp-sections-test-credential-${randomBytes(4).toString('hex')}`,
      );
      await writeFile(hostFile, 'aws_secret_access_key=host-only', { mode: 0o600 });
      tcp = await countingListener({ port: 0, host: '127.0.0.1' });
      unix = await countingListener({ path: path.join(socketDir, 'agent.sock') });

      const session = new Session();
      section = probeSection(session, workdir, { env: { DECLARED_VAR: 'declared' } });
      await section.connect();
      // The unsandboxed server reaches the unix listener: the probe itself works.
      expect(jsonOf(await call(section, 'probe_unix', { path: unix.address }))).toEqual({
        connected: true,
      });
      keyringOutside = jsonOf<KeyringProbe>(await call(section, 'probe_keyring', { write: false }));
      session.privateData.add('customer-records', 'confidential');
      // The first call after escalation waits for the sandboxed restart.
      expect((await call(section, 'probe_whoami')).success).toBe(true);
    });

    afterAll(async () => {
      await section.disconnect();
      await Promise.all([tcp.close(), unix.close()]);
      delete process.env[SECRET_NAME];
      await rm(hostFile, { force: true });
      await rm(workdir, { recursive: true, force: true });
      await rm(socketDir, { recursive: true, force: true });
      expect(await expectNoNewChildren(before)).toEqual([]);
    });

    it('cannot connect to a host unix socket outside its workspace', async () => {
      const acceptedBefore = unix.accepted();
      const outcome = jsonOf<{ connected: boolean; code?: string }>(
        await call(section, 'probe_unix', { path: unix.address }),
      );
      expect(outcome.connected).toBe(false);
      expect(unix.accepted()).toBe(acceptedBefore);
    });

    it('cannot reach 127.0.0.1 of the host', async () => {
      const outcome = jsonOf<{ connected: boolean }>(
        await call(section, 'probe_probe', { host: '127.0.0.1', port: tcp.address }),
      );
      expect(outcome.connected).toBe(false);
      expect(tcp.accepted()).toBe(0);
    });

    it.each([
      ['this test process', () => process.pid],
      ['pid 1', () => 1],
    ])('cannot enter the network namespace of %s through /proc', async (_label, pid) => {
      const outcome = jsonOf<{ open: string; connected: boolean }>(
        await call(section, 'probe_nsenter', { pid: pid(), host: '127.0.0.1', port: tcp.address }),
      );
      expect(outcome.connected).toBe(false);
      expect(tcp.accepted()).toBe(0);
    });

    it('runs in a user namespace of its own, with no capabilities, and cannot nest one', async () => {
      const powers = jsonOf<{ userns: string; capEff: string; nestedUserns: boolean }>(
        await call(section, 'probe_powers'),
      );
      expect(powers.userns).not.toBe(readlinkSync('/proc/self/ns/user'));
      expect(powers.capEff).toMatch(/^0+$/u);
      expect(powers.nestedUserns).toBe(false);
    });

    it("cannot reach the kernel keyring it would share with the agent's other processes", async () => {
      // Keyrings are not a namespace: without the syscall filter the sandbox
      // kept the agent's session keyring, a way to hand private data to a
      // process outside. The control: the kernel has keyrings.
      expect(keyringOutside.keyctl.errno).not.toBe(ENOSYS);
      const inside = jsonOf<KeyringProbe>(await call(section, 'probe_keyring', { write: true }));
      expect(inside).toEqual({
        keyctl: { result: -1, errno: ENOSYS },
        add_key: { result: -1, errno: ENOSYS },
        request_key: { result: -1, errno: ENOSYS },
      });
      // Nor the kernel's lists of the keys it could see, by description.
      for (const list of ['/proc/keys', '/proc/key-users']) {
        const read = jsonOf<{ content?: string; code?: string }>(
          await call(section, 'probe_try-read', { path: list }),
        );
        // /dev/null laid over it, which a nodev mount will not even open.
        expect(read.content ?? '', list).toBe('');
      }
    });

    it('cannot read /etc/shadow', async () => {
      const outcome = jsonOf<{ content?: string; code?: string }>(
        await call(section, 'probe_try-read', { path: '/etc/shadow' }),
      );
      expect(outcome.content).toBeUndefined();
    });

    it('sees no host process in /proc', async () => {
      const outcome = jsonOf<{ code?: string }>(
        await call(section, 'probe_try-read', { path: `/proc/${process.pid}/environ` }),
      );
      expect(outcome.code).toBe('ENOENT');
    });

    it('cannot read a file of the host home by absolute path', async () => {
      const outcome = jsonOf<{ content?: string; code?: string }>(
        await call(section, 'probe_try-read', { path: hostFile }),
      );
      expect(outcome.content).toBeUndefined();
      expect(outcome.code).toBe('ENOENT');
    });

    it('sees only the safe default environment, its declared env and its own HOME', async () => {
      const report = jsonOf<EnvReport>(
        await call(section, 'probe_env', { names: [SECRET_NAME, 'DECLARED_VAR', 'HOME'] }),
      );
      expect(report.values[SECRET_NAME]).toBeNull();
      expect(report.keys).not.toContain(SECRET_NAME);
      expect(report.values['DECLARED_VAR']).toBe('declared');
      expect(report.values['HOME']).toBe(SANDBOX_HOME);
    });

    it('can read and write its workspace, and nothing outside it', async () => {
      const written = await call(section, 'probe_write', {
        path: 'result.txt',
        content: 'from the sandbox',
      });
      expect(written.success).toBe(true);
      expect(await readFile(path.join(workdir, 'result.txt'), 'utf8')).toBe('from the sandbox');
      expect(jsonOf(await call(section, 'probe_read', { path: 'result.txt' }))).toEqual({
        content: 'from the sandbox',
      });
      // The server's own project is visible read-only: writing into it fails.
      const intoProject = path.join(process.cwd(), `escape-${randomBytes(4).toString('hex')}`);
      const refused = await call(section, 'probe_write', { path: intoProject, content: 'x' });
      expect(refused.success).toBe(false);
      await expect(readFile(intoProject, 'utf8')).rejects.toThrow(/ENOENT/);
      // /tmp is the sandbox's own: a write there never reaches the host's /tmp.
      const intoTmp = path.join(tmpdir(), `escape-${randomBytes(4).toString('hex')}`);
      const kept = await call(section, 'probe_write', { path: intoTmp, content: 'x' });
      expect(kept.success).toBe(true);
      await expect(readFile(intoTmp, 'utf8')).rejects.toThrow(/ENOENT/);
    });
  },
);

/** A probe server whose sandbox may reach 127.0.0.1:`port` through the proxy, and its session's denials. */
async function allowListProbe(port: number): Promise<{
  workdir: string;
  session: Session;
  denied: McpNetworkDenied[];
  section: McpIntegrationSection;
}> {
  const workdir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-egress-ws-'));
  const session = new Session();
  const denied = collect(session, McpNetworkDenied);
  const section = probeSection(session, workdir, {
    isolation: { network: { allow: [`127.0.0.1:${String(port)}`] } },
  });
  return { workdir, session, denied, section };
}

describe.runIf(support.backend === 'bubblewrap')('the allow-list tier (isolation.network)', () => {
  it('reaches an allowed host through the proxy, refuses another with a reason and an event, and nothing at secret', async () => {
    const before = childPids();
    const http = await import('node:http');
    const hits: string[] = [];
    const web = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('hello from the allowed host');
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', () => resolve()));
    const port = (web.address() as { port: number }).port;
    const { workdir, session, denied, section } = await allowListProbe(port);
    try {
      await section.connect();
      session.privateData.add('records', 'confidential');
      const allowed = jsonOf<{ connect: string; reply?: string }>(
        await call(section, 'probe_proxied-get', { host: '127.0.0.1', port }),
      );
      expect(allowed.connect).toContain('200');
      expect(allowed.reply).toBe('HTTP/1.1 200 OK');
      expect(hits).toEqual(['/']);

      const refused = jsonOf<{ connect: string; body: string }>(
        await call(section, 'probe_proxied-get', { host: '127.0.0.2', port }),
      );
      expect(refused.connect).toContain('403');
      expect(refused.body).toContain('is not on the allow-list of this sandbox');
      expect(denied).toHaveLength(1);
      expect(denied[0]).toMatchObject({ serverName: 'probe', host: '127.0.0.2', port });

      // Direct connections still go nowhere: the proxy is the only way out.
      const direct = jsonOf<{ connected: boolean }>(
        await call(section, 'probe_probe', { host: '127.0.0.1', port }),
      );
      expect(direct.connected).toBe(false);

      session.privateData.add('payroll', 'secret');
      const atSecret = jsonOf<{ connect: string; body: string }>(
        await call(section, 'probe_proxied-get', { host: '127.0.0.1', port }),
      );
      expect(atSecret.connect).toContain('403');
      expect(atSecret.body).toContain('secret');
      expect(hits).toEqual(['/']);
    } finally {
      await section.disconnect();
      await new Promise<void>((resolve) => web.close(() => resolve()));
      await rm(workdir, { recursive: true, force: true });
    }
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  it('cuts a tunnel opened at confidential when the level rises to secret', async () => {
    const before = childPids();
    // The allowed host: keeps what it receives.
    let received = '';
    const peers = new Set<Socket>();
    const sink = createServer((socket) => {
      peers.add(socket);
      socket.on('data', (chunk) => (received += chunk.toString('utf8')));
      socket.on('close', () => peers.delete(socket));
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', () => resolve()));
    const port = (sink.address() as AddressInfo).port;
    const { workdir, session, denied, section } = await allowListProbe(port);
    try {
      await section.connect();
      session.privateData.add('records', 'confidential');
      const opened = jsonOf<{ connect: string }>(
        await call(section, 'probe_tunnel-open', { host: '127.0.0.1', port }),
      );
      expect(opened.connect).toContain('200');
      expect(jsonOf(await call(section, 'probe_tunnel-send', { text: 'before;' }))).toEqual({
        open: true,
      });
      await expect.poll(() => received).toBe('before;');

      session.privateData.add('payroll', 'secret');
      expect(jsonOf(await call(section, 'probe_tunnel-send', { text: 'after;' }))).toEqual({
        open: false,
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(received).toBe('before;');
      const cut = denied.find((event) => event.host === '127.0.0.1' && event.port === port);
      expect(cut?.reason).toContain('secret');
    } finally {
      await section.disconnect();
      for (const peer of peers) peer.destroy();
      await new Promise<void>((resolve) => sink.close(() => resolve()));
      await rm(workdir, { recursive: true, force: true });
    }
    expect(await expectNoNewChildren(before)).toEqual([]);
  });
});
