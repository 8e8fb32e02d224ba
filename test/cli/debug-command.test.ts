import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import net from 'node:net';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EXIT_CODES } from '../../src/cli/exit-codes.js';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/run.js';
import { Session, Tool, ToolResult, TraceRecorder, invokeTool } from '../../src/index.js';
import { RedisSessionStore, traceEventMask } from '../../src/redis.js';
import type { TraceModel } from '../../src/trace/trace-model.js';
import { startRedis, type TestRedis } from '../fixtures/sessions/redis.js';

interface Captured extends CliIo {
  readonly out: () => string;
  readonly err: () => string;
}

function capture(): Captured {
  let out = '';
  let err = '';
  return {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text), isTTY: false },
    env: {},
    out: () => out,
    err: () => err,
  };
}

const echo = Tool.create({
  name: 'echo',
  description: 'Echoes its text; "fail" fails.',
  params: z.object({ text: z.string() }),
  handler: ({ text }) => (text === 'fail' ? ToolResult.error('failed') : ToolResult.ok(text, text)),
});

async function recordTrace(file: string, texts: readonly string[]): Promise<void> {
  const session = new Session();
  const trace = new TraceRecorder(session, { path: file });
  for (const text of texts) await invokeTool(echo, { text }, { session });
  await trace.close();
}

/** Runs `debug` until `stop()`; resolves with the URL once it is printed. */
async function serve(args: readonly string[]): Promise<{
  url: string;
  io: Captured;
  stop: () => Promise<number>;
}> {
  const io = capture();
  const controller = new AbortController();
  const done = runCli(['debug', ...args], io, { signal: controller.signal });
  for (let tries = 0; !io.out().includes('\n'); tries += 1) {
    if (tries > 200) throw new Error(`debug printed no URL; stderr: ${io.err()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    url: io.out().trim(),
    io,
    stop: async () => {
      controller.abort(new Error('test done'));
      return done;
    },
  };
}

async function model(url: string, query = ''): Promise<{ version: number; model: TraceModel }> {
  const response = await fetch(`${url}model.json${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as { version: number; model: TraceModel };
}

function refused(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cli-debug-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('mcp-sections debug', () => {
  it('serves a trace on loopback behind its token until interrupted', async () => {
    const file = path.join(dir, 'one.jsonl');
    await recordTrace(file, ['hello', 'fail']);
    const { url, io, stop } = await serve([file]);
    const { hostname, port, pathname } = new URL(url);
    expect(hostname).toBe('127.0.0.1');
    expect(pathname).toMatch(/^\/[A-Za-z0-9_-]{43}\/$/);

    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; script-src 'sha256-/,
    );
    expect(await page.text()).toContain('<title>one.jsonl · mcp-sections trace</title>');
    const { model: shown } = await model(url);
    expect(shown.calls.map((call) => [call.tool, call.outcome])).toEqual([
      ['echo', 'success'],
      ['echo', 'rolled-back'],
    ]);

    // Without the token, or with another one, nothing is shown.
    for (const other of [
      `http://127.0.0.1:${port}/`,
      `http://127.0.0.1:${port}/model.json`,
      url.replace(/\/[^/]+\/$/, '/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/'),
    ]) {
      const response = await fetch(other);
      expect(response.status).toBe(403);
      expect(await response.text()).not.toContain('echo');
    }
    // Read-only.
    expect((await fetch(url, { method: 'POST' })).status).toBe(405);
    // Not reachable from another address of this machine.
    const external = Object.values(os.networkInterfaces())
      .flatMap((infos) => infos ?? [])
      .find((info) => !info.internal && info.family === 'IPv4');
    if (external !== undefined) expect(await refused(Number(port), external.address)).toBe(true);

    expect(await stop()).toBe(EXIT_CODES.ok);
    expect(await refused(Number(port), '127.0.0.1')).toBe(true);
    expect(io.err()).toContain('read-only');
  });

  it('serves the traces of a directory, newest first, each by name', async () => {
    const traces = path.join(dir, 'many');
    await recordTrace(path.join(traces, 'first.jsonl'), ['a']);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await recordTrace(path.join(traces, 'second.jsonl'), ['b', 'c']);
    const { url, stop } = await serve([traces]);
    try {
      expect((await model(url)).model.name).toBe('second.jsonl');
      expect((await model(url, '?trace=first.jsonl')).model.calls).toHaveLength(1);
      expect((await fetch(`${url}model.json?trace=..%2Fone.jsonl`)).status).toBe(404);
      expect((await fetch(`${url}?trace=missing.jsonl`)).status).toBe(404);
    } finally {
      await stop();
    }
  });

  it('writes a static export with the model inside', async () => {
    const file = path.join(dir, 'export.jsonl');
    await recordTrace(file, ['hello']);
    const io = capture();
    const out = path.join(dir, 'site');
    expect(await runCli(['debug', file, '-o', out], io)).toBe(EXIT_CODES.ok);
    const html = await readFile(path.join(out, 'index.html'), 'utf8');
    expect(html).toContain('<script type="application/json" id="trace-data">');
    expect(html).toContain('<meta http-equiv="Content-Security-Policy"');
    expect(io.err()).toContain('works from file://');
  });

  it('refuses to export through a symbolic link planted in a directory others can write to', async () => {
    const file = path.join(dir, 'planted.jsonl');
    await recordTrace(file, ['private text']);
    const shared = path.join(dir, 'shared');
    const victim = path.join(dir, 'victim');
    await mkdir(shared);
    await chmod(shared, 0o1777);
    await mkdir(victim);
    await writeFile(path.join(victim, 'index.html'), 'the site');
    const link = path.join(shared, 'export');
    await symlink(victim, link);
    for (const out of [link, path.join(link, 'nested')]) {
      const io = capture();
      expect(await runCli(['debug', file, '-o', out], io)).toBe(EXIT_CODES.usage);
      expect(io.err()).toContain(`${link} is a symbolic link in a directory others can write to`);
    }
    expect(await readdir(victim)).toEqual(['index.html']);
    expect(await readFile(path.join(victim, 'index.html'), 'utf8')).toBe('the site');
    // A link in a directory of the user's own is followed, as codegen follows one.
    const own = path.join(dir, 'own-link');
    await symlink(victim, own);
    expect(await runCli(['debug', file, '-o', own], capture())).toBe(EXIT_CODES.ok);
    expect(await readFile(path.join(victim, 'index.html'), 'utf8')).toContain('trace-data');
  });

  it.each([
    [
      ['debug', 'x.jsonl', '--host', '0.0.0.0'],
      'host "0.0.0.0" is not a loopback address: the viewer binds 127.0.0.1, ::1 or localhost only, so that no other machine can read the trace',
    ],
    [
      ['debug', 'x.jsonl', '--host', '192.168.1.10'],
      'host "192.168.1.10" is not a loopback address',
    ],
    [
      ['debug', 'x.jsonl', '--port', '70000'],
      '--port "70000" must be a port number from 0 to 65535',
    ],
    [
      ['debug', path.join('no', 'such.jsonl')],
      '"no/such.jsonl" is not a trace file or a directory of traces',
    ],
    [
      ['debug'],
      'debug takes a trace file or a directory of traces (or --redis <url> --session <id>)',
    ],
    [
      ['debug', '--redis', 'redis://127.0.0.1:1'],
      '--redis needs --session <id>, the session to follow',
    ],
    [['inspect', 'x.json', '--port', '3'], '--port does not apply to inspect'],
  ])('refuses %j with exit 2', async (argv, message) => {
    const file = path.join(dir, 'x.jsonl');
    await recordTrace(file, []);
    const io = capture();
    const args = argv.map((arg) => (arg === 'x.jsonl' ? file : arg));
    expect(await runCli(args, io)).toBe(EXIT_CODES.usage);
    expect(io.err()).toContain(message);
  });
});

describe('mcp-sections debug --redis', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  it('names the Redis server without its user and password when it cannot follow', async () => {
    const password = 'Sup3rS3cretRedisPw';
    // Nothing listens on port 1: the store gives up at once.
    const url = `redis://default:${password}@127.0.0.1:1/0`;
    const io = capture();
    const code = await runCli(['debug', '--redis', url, '--session', 'conv-1'], io);
    expect(code).toBe(EXIT_CODES.connection);
    expect(io.err()).toContain('could not be followed on redis://127.0.0.1:1/0: ');
    expect(io.err()).not.toContain(password);
    expect(io.err()).not.toContain('default:');
    // ioredis also takes the password from the query.
    const queried = capture();
    const viaQuery = `redis://127.0.0.1:1/0?password=${password}`;
    expect(await runCli(['debug', '--redis', viaQuery, '--session', 'conv-1'], queried)).toBe(
      EXIT_CODES.connection,
    );
    expect(queried.err()).toContain('could not be followed on redis://127.0.0.1:1/0: ');
    expect(queried.err()).not.toContain(password);
  });

  it('follows a running session through its event stream, results withheld after escalation', async () => {
    await using store = new RedisSessionStore({ url: redis.url });
    const session = await Session.open({
      sessionId: 'live-1',
      store,
      mirrorEvents: { mask: traceEventMask() },
    });
    await invokeTool(echo, { text: 'before viewer' }, { session });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const { url, stop } = await serve(['--redis', redis.url, '--session', 'live-1']);
    try {
      let current = await model(url);
      for (let tries = 0; current.model.calls.length < 1 && tries < 100; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        current = await model(url);
      }
      expect(current.model.name).toBe('redis:live-1');
      expect(current.model.calls.map((call) => call.tool)).toEqual(['echo']);
      // Unchanged: the page's poll gets no body.
      expect((await fetch(`${url}model.json?version=${current.version}`)).status).toBe(204);

      session.privateData.add('crm', 'confidential');
      await session.flush();
      await invokeTool(echo, { text: 'PRIVATE ANSWER' }, { session });
      for (let tries = 0; current.model.calls.length < 2 && tries < 100; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        current = await model(url);
      }
      expect(current.model.calls).toHaveLength(2);
      expect(current.model.sensitivity.steps.map((step) => step.level)).toEqual(['confidential']);
      const last = current.model.events.find((event) => event.seq === current.model.calls[1]?.seq);
      expect(last?.fields['result']).toEqual({ success: true, withheld: 'private-data' });
      const text = JSON.stringify(current.model);
      expect(text).toContain('"params":{"text":"PRIVATE ANSWER"}'); // the arguments stay
      expect(text).not.toContain('"message":"PRIVATE ANSWER"');
      expect(text).not.toContain('"value":"PRIVATE ANSWER"');
    } finally {
      expect(await stop()).toBe(EXIT_CODES.ok);
    }
  });
});

describe('mcp-sections debug --open', () => {
  it.runIf(process.platform === 'linux')(
    '--open hands the browser a private file, never the token URL on a command line',
    async () => {
      const file = path.join(dir, 'opened.jsonl');
      await recordTrace(file, ['hello']);
      // A stand-in opener that records its command line and the page it was given.
      const bin = path.join(dir, 'bin');
      const seen = path.join(dir, 'seen');
      await mkdir(bin);
      await writeFile(
        path.join(bin, 'xdg-open'),
        [
          '#!/bin/sh',
          `printf '%s\\n' "$@" > '${seen}.argv'`,
          'page="${1#file://}"',
          `stat -c '%a' "$page" "$(dirname "$page")" > '${seen}.modes'`,
          `cat "$page" > '${seen}.page'`,
          '',
        ].join('\n'),
        { mode: 0o755 },
      );
      const savedPath = process.env['PATH'];
      process.env['PATH'] = `${bin}${path.delimiter}${savedPath ?? ''}`;
      let served: Awaited<ReturnType<typeof serve>>;
      try {
        served = await serve([file, '--open']);
      } finally {
        process.env['PATH'] = savedPath;
      }
      const { url, stop } = served;
      await expect.poll(() => readFile(`${seen}.page`, 'utf8').catch(() => '')).toContain(url);
      const argv = (await readFile(`${seen}.argv`, 'utf8')).trim();
      const token = new URL(url).pathname.split('/')[1] ?? '';
      expect(token.length).toBeGreaterThan(40);
      expect(argv).not.toContain(token);
      expect(argv).toMatch(/^file:\/\/\/.+\.html$/);
      expect((await readFile(`${seen}.modes`, 'utf8')).trim().split('\n')).toEqual(['600', '700']);
      const page = fileURLToPath(argv);
      expect(await readFile(page, 'utf8')).toContain(
        `<meta http-equiv="refresh" content="0;url=${url}">`,
      );
      expect(await stop()).toBe(EXIT_CODES.ok);
      await expect(stat(path.dirname(page))).rejects.toThrow(/ENOENT/);
    },
  );
});
