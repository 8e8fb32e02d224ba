/**
 * The trace viewer in a real browser: Debian's chromium, driven by
 * playwright-core, against a trace recorded from a real run against
 * server-everything. Screenshots go to test/artifacts/ for a person to look
 * at. One browser for the whole file.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Session, Tool, ToolResult, TraceRecorder, invokeTool } from '../../../src/index.js';
import { exportTraceViewer } from '../../../src/trace/viewer/static-export.js';
import { fileTraceSource } from '../../../src/trace/viewer/trace-source.js';
import { startTraceViewer, type TraceViewer } from '../../../src/trace/viewer/viewer-server.js';
import { writeLargeTrace } from '../generate-trace.js';
import { recordRealRun, type RecordedRun } from '../real-run.js';

const CHROMIUM = '/usr/bin/chromium';
const artifacts = path.resolve(import.meta.dirname, '../../artifacts');

let dir: string;
let run: RecordedRun;
let viewer: TraceViewer;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'trace-viewer-'));
  await mkdir(artifacts, { recursive: true });
  run = await recordRealRun(path.join(dir, 'run.jsonl'));
  viewer = await startTraceViewer(await fileTraceSource(run.path));
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  await page.goto(viewer.url);
  await page.waitForSelector('body[data-ready="true"]');
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The little of the DOM these checks touch (the project's types have no DOM library). */
interface DomNode {
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomNode | null;
  readonly textContent: string | null;
  scrollTop: number;
  readonly scrollHeight: number;
}

/** What the timeline shows, row by row: [tool, outcome]. */
async function timelineRows(target: Page): Promise<string[][]> {
  const rows = await target.$$eval('#timeline-list .row', (elements: unknown[]) =>
    (elements as DomNode[]).map((row) => [
      Number(row.getAttribute('data-index')),
      row.querySelector('.tool')?.textContent ?? '',
      row.getAttribute('data-outcome') ?? '',
    ]),
  );
  return rows
    .sort((a, b) => Number(a[0]) - Number(b[0]))
    .map(([, tool, outcome]) => [String(tool), String(outcome)]);
}

describe('the trace viewer in chromium', () => {
  it('shows every call of the run on the timeline with its outcome', async () => {
    expect(await timelineRows(page)).toEqual(run.calls.map((call) => [call.tool, call.outcome]));
    expect(await page.textContent('#timeline-count')).toBe(
      `${run.calls.length} of ${run.calls.length} calls shown`,
    );
  });

  it('shows why a call was refused when it is clicked', async () => {
    await page.click('#timeline-list .row[data-outcome="refused"] >> nth=1');
    const reason = await page.textContent('#call-reason');
    expect(reason).toMatch(/^tool "everything_echo" is blocked: it has the "connect" permission/);
    expect(await page.textContent('#call-detail h2')).toBe('everything_echo');
    await page.screenshot({ path: path.join(artifacts, 'timeline.png') });
  });

  it('filters by outcome and by server', async () => {
    await page.click('#timeline-filters [data-filter="success"]');
    const rows = await timelineRows(page);
    expect(rows.length).toBe(run.calls.filter((call) => call.outcome !== 'success').length);
    expect(rows.every(([, outcome]) => outcome !== 'success')).toBe(true);
    await page.click('#timeline-filters [data-filter="success"]');
    await page.click('#timeline-filters [data-filter="everything"]');
    expect((await timelineRows(page)).map(([tool]) => tool)).toEqual(
      run.calls.map((call) => call.tool).filter((tool) => !tool.startsWith('everything_')),
    );
    await page.click('#timeline-filters [data-filter="everything"]');
  });

  it('moves with j / k and searches with /', async () => {
    await page.click('#tab-timeline');
    await page.click('#timeline-list .row >> nth=0');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    expect(await page.textContent('#call-detail h2')).toBe(run.calls[2]?.tool);
    await page.keyboard.press('k');
    expect(await page.textContent('#call-detail h2')).toBe(run.calls[1]?.tool);
    await page.keyboard.press('/');
    await page.keyboard.type('timed out');
    expect(await timelineRows(page)).toEqual([
      ['slow_trigger-long-running-operation', 'timed-out'],
    ]);
    await page.fill('#search', '');
    await page.keyboard.press('Escape');
    expect((await timelineRows(page)).length).toBe(run.calls.length);
  });

  it('charts the sensitivity over time with the event that raised it', async () => {
    await page.keyboard.press('2');
    await page.waitForSelector('#sensitivity-chart .point');
    expect(await page.locator('#sensitivity-chart .point').count()).toBe(1);
    expect(await page.getAttribute('#sensitivity-chart', 'aria-label')).toBe(
      'Session sensitivity from public to confidential, 1 rise(s)',
    );
    const rise = await page.textContent('#escalations li[data-step="0"]');
    expect(rise).toContain('public → confidential');
    expect(rise).toContain('everything.get-tiny-image');
    expect(rise).toContain('during everything_get-tiny-image');
    await page.screenshot({ path: path.join(artifacts, 'sensitivity.png') });
    await page.click('#escalations li[data-step="0"] button');
    expect(await page.textContent('#call-detail h2')).toBe('everything_get-tiny-image');
  });

  it('shows each rendered prompt and what changed since the previous render', async () => {
    await page.keyboard.press('3');
    // The last render came after the escalation: its text is left out of the trace.
    await page.click('#render-list li[data-index="2"]');
    expect(await page.textContent('#render-text, #render-diff')).toContain('[left out:');
    await page.click('#render-list li[data-index="1"]');
    const diff = await page.$$eval(
      '#render-diff span.added, #render-diff span.removed',
      (lines: unknown[]) => (lines as DomNode[]).map((line) => line.textContent),
    );
    expect(diff).toEqual(['-Do this: add two numbers', '+Do this: describe the image']);
    await page.screenshot({ path: path.join(artifacts, 'prompts.png') });
  });

  it('shows the slices at a chosen point and the servers with the unavailable reason', async () => {
    await page.keyboard.press('4');
    await page.click('#snapshot-list li[data-index="1"]');
    expect(JSON.parse((await page.textContent('#state-detail pre'))!)).toEqual({
      notes: { entries: ['kept'] },
    });
    await page.keyboard.press('5');
    const remote = await page.textContent('#server-table tr[data-server="remote"]');
    expect(remote).toContain('unavailable');
    expect(remote).toContain('cannot connect');
    await page.screenshot({ path: path.join(artifacts, 'servers.png') });
  });

  it('shows no secret of the run anywhere: page, model or trace file', async () => {
    const texts = [await readFile(run.path, 'utf8')];
    for (const key of ['1', '2', '3', '4', '5', '6']) {
      await page.keyboard.press(key);
      texts.push(await page.content());
    }
    await page.keyboard.press('1');
    await page.click('#timeline-list .row >> nth=3'); // get-env: the server's whole environment
    texts.push(await page.content());
    texts.push(await (await page.request.get(`${viewer.url}model.json`)).text());
    expect(texts.join('\n')).toContain('TRACE_TEST_TOKEN');
    for (const secret of run.secrets) {
      for (const text of texts) expect(text).not.toContain(secret);
    }
    expect(pageErrors).toEqual([]);
  });

  it('shows trace text as text: markup in arguments is not run', async () => {
    const session = new Session();
    const file = path.join(dir, 'hostile.jsonl');
    const trace = new TraceRecorder(session, { path: file });
    const hostile =
      '</script><script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">';
    const tool = Tool.create({
      name: 'echo_html',
      description: 'Echoes its text.',
      params: z.object({ text: z.string() }),
      handler: ({ text }) => ToolResult.error(text),
    });
    await invokeTool(tool, { text: hostile }, { session });
    await trace.close();
    await using hostileViewer = await startTraceViewer(await fileTraceSource(file));
    const other = await browser.newPage();
    await other.goto(hostileViewer.url);
    await other.waitForSelector('body[data-ready="true"]');
    await other.click('#timeline-list .row >> nth=0');
    expect(await other.textContent('#call-reason')).toBe(hostile);
    expect(await other.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    await other.close();
  });

  it('works as a static export opened from file://', async () => {
    const out = path.join(dir, 'export');
    const [index] = await exportTraceViewer(await fileTraceSource(run.path), out);
    const other = await browser.newPage();
    const errors: string[] = [];
    other.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await other.goto(pathToFileURL(index!).href);
    await other.waitForSelector('body[data-ready="true"]');
    expect(await timelineRows(other)).toEqual(run.calls.map((call) => [call.tool, call.outcome]));
    expect(errors).toEqual([]);
    await other.close();
  });

  it('loads 10,000 calls keeping only the rows in sight in the DOM', async () => {
    const file = path.join(dir, 'large.jsonl');
    await writeLargeTrace(file, 10_000);
    await using large = await startTraceViewer(await fileTraceSource(file));
    const other = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    await other.goto(large.url);
    await other.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
    expect(await other.textContent('#timeline-count')).toBe('10000 of 10000 calls shown');
    const rendered = await other.locator('#timeline-list .row').count();
    expect(rendered).toBeGreaterThan(10);
    expect(rendered).toBeLessThan(100);
    // The end of the list is reachable, and still few rows are in the DOM.
    await other.click('#timeline-list .row >> nth=0');
    await other.$eval('#timeline-list', (element: unknown) => {
      const list = element as DomNode;
      list.scrollTop = list.scrollHeight;
    });
    await other.waitForSelector('#timeline-list .row[data-index="9999"]');
    expect(await other.locator('#timeline-list .row').count()).toBeLessThan(100);
    const loadMs = await other.getAttribute('body', 'data-load-ms');
    // Recorded for a person (docs/debugging.md, bench/trace-viewer.ts), not asserted.
    console.log(`viewer: 10,000 calls ready ${loadMs} ms after navigation`);
    await other.close();
  });
});
