import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session, TraceError, TraceRecorder } from '../../../src/index.js';
import { fileTraceSource } from '../../../src/trace/viewer/trace-source.js';
import { startTraceViewer } from '../../../src/trace/viewer/viewer-server.js';

let dir: string;
let file: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'viewer-server-'));
  file = path.join(dir, 'run.jsonl');
  await new TraceRecorder(new Session(), { path: file }).close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A GET with a Host header of our choosing (fetch does not allow setting it). */
function get(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { host } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
      .once('error', reject);
  });
}

describe('startTraceViewer', () => {
  it('answers its own address and refuses other Host names (DNS rebinding)', async () => {
    await using viewer = await startTraceViewer(await fileTraceSource(file), {
      token: 'a'.repeat(20),
    });
    expect(viewer.url).toBe(`http://127.0.0.1:${viewer.port}/${'a'.repeat(20)}/`);
    expect(await get(viewer.url, `127.0.0.1:${viewer.port}`)).toBe(200);
    expect(await get(viewer.url, `localhost:${viewer.port}`)).toBe(200);
    expect(await get(viewer.url, `attacker.example:${viewer.port}`)).toBe(403);
    expect(await get(`${viewer.url}nested/path`, `127.0.0.1:${viewer.port}`)).toBe(404);
    expect(await get(`${viewer.url}app.js`, `127.0.0.1:${viewer.port}`)).toBe(404);
    const head = await fetch(viewer.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('referrer-policy')).toBe('no-referrer');
    expect(head.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('sends the address without its final slash to the address with it, keeping the query', async () => {
    await using viewer = await startTraceViewer(await fileTraceSource(file), {
      token: 'b'.repeat(20),
    });
    const bare = `http://127.0.0.1:${viewer.port}/${'b'.repeat(20)}?trace=run.jsonl`;
    const response = await fetch(bare, { redirect: 'manual' });
    expect(response.status).toBe(308);
    expect(response.headers.get('location')).toBe(`/${'b'.repeat(20)}/?trace=run.jsonl`);
    // Followed, the page loads, and its relative model.json keeps the token.
    expect((await fetch(bare)).status).toBe(200);
    expect((await fetch(`${viewer.url}model.json?trace=run.jsonl`)).status).toBe(200);
    // Without the token, there is nothing to redirect to.
    expect(
      (await fetch(`http://127.0.0.1:${viewer.port}/wrong`, { redirect: 'manual' })).status,
    ).toBe(403);
  });

  it('listens on IPv6 loopback when asked', async () => {
    await using viewer = await startTraceViewer(await fileTraceSource(file), { host: '::1' });
    expect(viewer.url).toMatch(/^http:\/\/\[::1\]:\d+\/[A-Za-z0-9_-]{43}\/$/);
    expect((await fetch(viewer.url)).status).toBe(200);
  });

  it('stops listening on close, and close is idempotent', async () => {
    const viewer = await startTraceViewer(await fileTraceSource(file));
    await viewer.close();
    await viewer.close();
    await expect(fetch(viewer.url)).rejects.toThrow();
  });

  it.each([
    [{ port: 70_000 }, 'port 70000 must be an integer from 0 to 65535'],
    [{ token: 'short' }, 'token must be at least 16 characters of A-Z, a-z, 0-9, "_" or "-"'],
    [{ host: '0.0.0.0' }, 'host "0.0.0.0" is not a loopback address'],
  ])('refuses %j', async (options, message) => {
    await expect(startTraceViewer(await fileTraceSource(file), options)).rejects.toThrow(message);
  });

  it('says when its port is taken', async () => {
    await using first = await startTraceViewer(await fileTraceSource(file));
    const second = startTraceViewer(await fileTraceSource(file), { port: first.port });
    await expect(second).rejects.toBeInstanceOf(TraceError);
    await expect(second).rejects.toMatchObject({ code: 'trace-viewer' });
  });
});
