/**
 * Values `${VAR}` expansion puts into a stdio server's `args` or a URL's
 * path are masked like `env` values: a token passed on the command line of
 * a server that prints its argv and dies stays out of the unavailable
 * reason, the rendered prompt and the events.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandedSecrets } from '../../src/config/expanded-secrets.js';
import {
  loadServerConfigs,
  McpIntegrationSection,
  McpServerUnavailable,
  PromptTemplate,
  Prompt,
  Session,
} from '../../src/index.js';
import { startHttpHost, tempDir, type TempDir } from '../support/mcp-fixtures.js';

/** A section on `servers` that reports the unavailable ones, and every event of its session. */
function reportingSection(servers: Awaited<ReturnType<typeof loadServerConfigs>>): {
  section: McpIntegrationSection;
  session: Session;
  events: unknown[];
} {
  const session = new Session();
  const events: unknown[] = [];
  session.bus.subscribeAll((event) => events.push(event));
  const section = new McpIntegrationSection({ servers, session, onConnectError: 'report' });
  return { section, session, events };
}

describe('expandedSecrets', () => {
  it('takes what went into args, and of a URL what lies beyond its origin', () => {
    const url = 'https://mcp.example.test:8443/api/sk-PATH-123/sse';
    expect(
      expandedSecrets(
        [
          { value: 'ghp_token123', field: 'mcp_servers.gh.args[2]' },
          { value: 'sk-PATH-123', field: 'mcpServers.zap.url' },
          { value: 'iso-PATH-456', field: 'mcp_servers.zap.url_isolated' },
          { value: 'mcp.example.test', field: 'mcpServers.zap.url' },
          { value: '8443', field: 'mcpServers.zap.url' },
          { value: '/usr/bin/node', field: 'mcp_servers.gh.command' },
          { value: '/srv/work', field: 'mcp_servers.gh.cwd' },
        ],
        [url, 'https://iso.example.test/iso-PATH-456'],
      ),
    ).toEqual(['ghp_token123', 'sk-PATH-123', 'iso-PATH-456']);
  });

  it('takes what went into a header, whole or as part of its value', () => {
    expect(
      expandedSecrets(
        [
          { value: 'sid-9f8e7d6c', field: 'mcpServers.web.headers.Cookie' },
          { value: 'hunter2-pass', field: 'mcp_servers.web.headers.X-Auth' },
        ],
        [],
      ),
    ).toEqual(['sid-9f8e7d6c', 'hunter2-pass']);
  });

  it('takes what went into part of an env value, in every form', () => {
    expect(
      expandedSecrets(
        [
          { value: 'pw-json-5678', field: 'mcpServers.db.env.DATABASE_URL' },
          { value: 'pw-yaml-5678', field: 'mcp_servers.db.env.DATABASE_URL' },
          { value: 'kube-9999', field: 'mcp_servers.k8s.transport.env.KUBE_AUTH' },
          { value: 'tok-bearer-1', field: 'mcp_servers.k8s.transport.bearer_token' },
          { value: '/usr/bin/node', field: 'mcp_servers.env.command' },
        ],
        [],
      ),
    ).toEqual(['pw-json-5678', 'pw-yaml-5678', 'kube-9999', 'tok-bearer-1']);
  });

  it('takes of a URL in env its password and a user name that is a token, not its host or port, nor a piece too short to be a key', () => {
    const url = 'postgres://app:hunter2-s3cr3t@localhost:5432/app?sslmode=require&key=k3y-abcdef';
    expect(
      expandedSecrets(
        [
          { value: 'hunter2-s3cr3t', field: 'mcpServers.db.env.DATABASE_URL' },
          { value: 'localhost', field: 'mcpServers.db.env.DATABASE_URL' },
          { value: '5432', field: 'mcpServers.db.env.DATABASE_URL' },
          { value: 'app', field: 'mcpServers.db.env.DATABASE_URL' },
          { value: 'k3y-abcdef', field: 'mcpServers.db.env.DATABASE_URL' },
          { value: 'pw', field: 'mcpServers.other.env.PIN_URL' },
          // A whole env value is masked as one already.
          { value: 'whole-value-123', field: 'mcpServers.db.env.TOKEN' },
          // A user name that is the token (GitHub's documented form).
          { value: 'ghp_R5cUserNameToken0123', field: 'mcpServers.git.env.REPO_URL' },
        ],
        [],
        [
          url,
          'https://u:pw@example.com/',
          'whole-value-123',
          'https://ghp_R5cUserNameToken0123@github.com/org/repo.git',
        ],
      ),
    ).toEqual(['hunter2-s3cr3t', 'k3y-abcdef', 'pw', 'ghp_R5cUserNameToken0123']);
  });

  it('takes the path of a whole URL from the environment, not its origin', () => {
    const url = 'https://mcp.example.test/api/sk-PATH-123/sse';
    expect(expandedSecrets([{ value: url, field: 'mcpServers.zap.url' }], [url])).toEqual([
      '/api/sk-PATH-123/sse',
    ]);
  });
});

describe('a token expanded into args, end to end', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = await tempDir('expanded-secrets');
  });
  afterAll(async () => {
    await dir[Symbol.asyncDispose]();
  });

  it.each(['servers.json', 'config.yaml'])(
    'is masked in the reason, the prompt and the events (%s)',
    async (name) => {
      const token = 'ghp_ArgvSecret123456';
      // A server that prints its command line, as many do on a bad option, and dies.
      const script =
        'console.error("fatal: bad option in " + process.argv.join(" ")); process.exit(3)';
      const args = ['-e', script, '--', '--token', '${GH_TOKEN}'];
      const text =
        name === 'servers.json'
          ? JSON.stringify({ mcpServers: { gh: { command: process.execPath, args } } })
          : `mcp_servers:\n  gh:\n    command: ${JSON.stringify(process.execPath)}\n    args: ${JSON.stringify(args)}\n`;
      const file = path.join(dir.path, name);
      await writeFile(file, text);
      const servers = await loadServerConfigs(file, { env: { GH_TOKEN: token } });
      expect(servers[0]?.secrets).toEqual([token]);

      const { section, session, events } = reportingSection(servers);
      try {
        await section.connect();
        const [unavailable] = section.unavailableServers;
        expect(unavailable?.reason).toContain('bad option in');
        expect(unavailable?.reason).toContain('--token ***');
        const prompt = new Prompt(
          PromptTemplate.create({ ns: 't', key: 'k', sections: [section] }),
        ).render({ session }).text;
        const seen = JSON.stringify({ unavailable, prompt, events });
        expect(events.some((event) => event instanceof McpServerUnavailable)).toBe(true);
        expect(seen).not.toContain(token);
      } finally {
        await section.disconnect();
      }
    },
  );
});

describe('a token expanded into part of a header, end to end', () => {
  it('is masked in the reason and the events when the server echoes the header piece by piece', async () => {
    const sid = 'sid-9f8e7d6c5b4a';
    const key = 'ak_live_51HxQzz';
    // An auth proxy that says what it rejected, piece by piece, as many do.
    const host = await startHttpHost(async (req, res) => {
      const pieces = Object.entries(req.headers).flatMap(([name, value]) =>
        String(value)
          .split(/[;:=,\s]+/)
          .map((piece) => `${name}: ${piece}`),
      );
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end(`rejected\n${pieces.join('\n')}`);
      await Promise.resolve();
    });
    const dir = await tempDir('header-secrets');
    try {
      const file = path.join(dir.path, 'servers.json');
      await writeFile(
        file,
        JSON.stringify({
          mcpServers: {
            web: {
              type: 'http',
              url: host.url('/mcp'),
              headers: { Cookie: 'theme=dark; sid=${SID}', 'X-Api-Key': 'key=${KEY}' },
            },
          },
        }),
      );
      const servers = await loadServerConfigs(file, { env: { SID: sid, KEY: key } });
      const { section, events } = reportingSection(servers);
      try {
        await section.connect();
        const [unavailable] = section.unavailableServers;
        expect(unavailable?.reason).toContain('rejected');
        expect(unavailable?.reason).toContain('theme'); // the rest of the header is no secret
        const seen = JSON.stringify({ unavailable, events });
        expect(seen).not.toContain(sid);
        expect(seen).not.toContain(key);
      } finally {
        await section.disconnect();
      }
    } finally {
      await host.close();
      await dir[Symbol.asyncDispose]();
    }
  });
});

describe('a token expanded into part of an env value, end to end', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = await tempDir('env-secrets');
  });
  afterAll(async () => {
    await dir[Symbol.asyncDispose]();
  });

  it.each([
    ['.mcp.json', 'env'],
    ['config.yaml', 'env'],
    ['config.yaml', 'transport.env'],
  ])(
    'is recorded and masked in the reason, the prompt and the events (%s %s)',
    async (name, at) => {
      const password = 'hunter2-s3cr3t-value';
      const databaseUrl = 'postgres://app:${DB_PASSWORD}@db.internal/app';
      // A server that names the password it failed with, as database drivers do, and dies.
      const script =
        'console.error("fatal: auth failed for password " + new URL(process.env.DATABASE_URL).password); process.exit(3)';
      const args = ['-e', script];
      const env = { DATABASE_URL: databaseUrl };
      const text =
        name === '.mcp.json'
          ? JSON.stringify({ mcpServers: { db: { command: process.execPath, args, env } } })
          : at === 'env'
            ? `mcp_servers:\n  db:\n    command: ${JSON.stringify(process.execPath)}\n    args: ${JSON.stringify(args)}\n    env: ${JSON.stringify(env)}\n`
            : `mcp_servers:\n  db:\n    transport: { type: stdio, command: ${JSON.stringify(process.execPath)}, args: ${JSON.stringify(args)}, env: ${JSON.stringify(env)} }\n`;
      const file = path.join(dir.path, `${at}-${name}`);
      await writeFile(file, text);
      const servers = await loadServerConfigs(file, { env: { DB_PASSWORD: password } });
      expect(servers[0]?.env).toEqual({
        DATABASE_URL: `postgres://app:${password}@db.internal/app`,
      });
      expect(servers[0]?.secrets).toEqual([password]);

      const { section, session, events } = reportingSection(servers);
      try {
        await section.connect();
        const [unavailable] = section.unavailableServers;
        expect(unavailable?.reason).toContain('auth failed for password ***');
        const prompt = new Prompt(
          PromptTemplate.create({ ns: 't', key: 'k', sections: [section] }),
        ).render({ session }).text;
        const seen = JSON.stringify({ unavailable, prompt, events });
        expect(events.some((event) => event instanceof McpServerUnavailable)).toBe(true);
        expect(seen).not.toContain(password);
      } finally {
        await section.disconnect();
      }
    },
  );
});
