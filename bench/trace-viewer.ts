/**
 * How long the trace viewer takes to show a large trace in Debian's
 * chromium: `npx tsx bench/trace-viewer.ts [calls] [runs]` (defaults
 * 10,000 and 5). Reports the time from navigation to the first drawn
 * timeline (the page's `trace-viewer:ready` measure: fetching the model,
 * parsing it and drawing every view) and how many rows the DOM holds.
 * Not run by `npm test`: tests never assert on wall-clock time.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { fileTraceSource } from '../src/trace/viewer/trace-source.js';
import { startTraceViewer } from '../src/trace/viewer/viewer-server.js';
import { writeLargeTrace } from '../test/trace/generate-trace.js';

const calls = Number(process.argv[2] ?? 10_000);
const runs = Number(process.argv[3] ?? 5);
const dir = await mkdtemp(path.join(tmpdir(), 'bench-trace-viewer-'));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true });
try {
  const file = path.join(dir, 'large.jsonl');
  await writeLargeTrace(file, calls);
  await using viewer = await startTraceViewer(await fileTraceSource(file));
  const times: number[] = [];
  let rows = 0;
  for (let run = 0; run < runs; run += 1) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    await page.goto(viewer.url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
    times.push(Number(await page.getAttribute('body', 'data-load-ms')));
    rows = await page.locator('#timeline-list .row').count();
    await page.close();
  }
  times.sort((a, b) => a - b);
  const size = (await stat(file)).size;
  console.log(
    `${calls} calls (${(size / 1_048_576).toFixed(1)} MiB trace): ready in ` +
      `${times[Math.floor(times.length / 2)]} ms (median of ${runs}; min ${times[0]}, max ${times.at(-1)}), ` +
      `${rows} timeline rows in the DOM`,
  );
} finally {
  await browser.close();
  await rm(dir, { recursive: true, force: true });
}
