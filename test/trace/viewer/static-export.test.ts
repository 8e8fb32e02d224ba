import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Session, TraceRecorder } from '../../../src/index.js';
import { exportTraceViewer } from '../../../src/trace/viewer/static-export.js';
import { fileTraceSource } from '../../../src/trace/viewer/trace-source.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'static-export-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('exportTraceViewer', () => {
  it('writes one page per trace of a directory, index.html for the newest, linked to each other', async () => {
    const traces = path.join(dir, 'traces');
    await new TraceRecorder(new Session({ sessionId: 'first' }), {
      path: path.join(traces, 'a.jsonl'),
    }).close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await new TraceRecorder(new Session({ sessionId: 'second' }), {
      path: path.join(traces, 'b.jsonl'),
    }).close();
    const out = path.join(dir, 'site');
    const written = await exportTraceViewer(await fileTraceSource(traces), out);
    expect(written.map((file) => path.basename(file))).toEqual([
      'index.html',
      'b.jsonl.html',
      'a.jsonl.html',
    ]);
    expect((await readdir(out)).sort()).toEqual(['a.jsonl.html', 'b.jsonl.html', 'index.html']);
    // The pages embed the traces: the owner's alone.
    for (const file of written) expect((await stat(file)).mode & 0o777).toBe(0o600);
    const index = await readFile(path.join(out, 'index.html'), 'utf8');
    expect(index).toContain('"sessionId":"second"');
    const config = /<script type="application\/json" id="viewer-config">(.*?)<\/script>/.exec(
      index,
    )?.[1];
    expect(JSON.parse(config!)).toEqual({
      mode: 'static',
      live: false,
      current: 'b.jsonl',
      traces: [
        { name: 'b.jsonl', href: './b.jsonl.html' },
        { name: 'a.jsonl', href: './a.jsonl.html' },
      ],
    });
    expect(index).toContain('connect-src &#39;none&#39;'); // in the meta tag: no fetch from file://
  });

  it('links a trace whose file name reads like a URL scheme as a file, never as javascript:', async () => {
    const traces = path.join(dir, 'schemes');
    await new TraceRecorder(new Session(), {
      path: path.join(traces, "javascript:document.title='x';0;a.jsonl"),
    }).close();
    const out = path.join(dir, 'schemes-site');
    await exportTraceViewer(await fileTraceSource(traces), out);
    const index = await readFile(path.join(out, 'index.html'), 'utf8');
    const config = /<script type="application\/json" id="viewer-config">(.*?)<\/script>/.exec(
      index,
    )?.[1];
    const { traces: links } = JSON.parse(config!) as { traces: { href: string }[] };
    expect(links.map((link) => link.href)).toEqual([
      `./${encodeURIComponent("javascript:document.title='x';0;a.jsonl.html")}`,
    ]);
    expect(new URL(links[0]!.href, 'file:///site/').protocol).toBe('file:');
  });
});
