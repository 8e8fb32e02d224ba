/**
 * A hostile stdio server that lists page after page of schemas, each page
 * under the transport's 10 MB line and each fresh text: the connect
 * refuses the listing once the whole passes its bound, and says so, rather
 * than holding gigabytes until the page bound (1,000 pages) or the time
 * bound ends it. The server counts the pages it was asked for.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { McpServerUnavailable } from '../../src/index.js';
import { CONTAINER_SIZE, valueSize } from '../../src/mcp/listing-size.js';
import { MAX_LISTING_SIZE } from '../../src/mcp/requests.js';
import { handWrittenServer } from '../support/hand-written-server.js';
import { containersIn, escapeChars } from '../support/json-text.js';
import { observedSection, tempDir } from '../support/mcp-fixtures.js';

/** About 9 MB of schemas a page: 9,000 properties of 1 KB each, new text every page. */
const SERVER = handWrittenServer({
  name: 'hoarder',
  preamble: `const { appendFileSync } = require('node:fs'); let page = 0;`,
  toolsList: `
    page += 1;
    appendFileSync(process.argv[1], '.');
    const properties = {};
    for (let i = 0; i < 9000; i++) {
      properties['p' + i] = { type: 'string', description: (page + ':' + i + ':').padEnd(1000, 'x') };
    }
    send({ jsonrpc: '2.0', id: message.id, result: {
      tools: [{ name: 'page' + page, inputSchema: { type: 'object', properties } }],
      nextCursor: 'page-' + page } });`,
});

describe('the bound on a whole listing, over stdio', () => {
  it('refuses a server that lists schemas without end, at the bound, naming it', async () => {
    await using dir = await tempDir('mcp-sections-listing');
    const counter = join(dir.path, 'pages');
    const { events, section } = observedSection([
      {
        name: 'hoarder',
        timeoutMs: 20_000,
        transport: { type: 'stdio', command: process.execPath, args: ['-e', SERVER, counter] },
      },
    ]);
    try {
      await section.connect();
      const [unavailable] = section.unavailableServers;
      expect(unavailable?.name).toBe('hoarder');
      expect(unavailable?.reason).toContain(`tools/list was larger than ${MAX_LISTING_SIZE}`);
      expect(section.tools()).toEqual([]);
      expect(events.of(McpServerUnavailable).map((event) => event.serverName)).toContain('hoarder');
      // About 9.6 million a page: the bound is passed at the eleventh, and no page is asked for after it.
      const pages = readFileSync(counter, 'utf8').length;
      expect(pages).toBeGreaterThanOrEqual(10);
      expect(pages).toBeLessThanOrEqual(12);
    } finally {
      await section.disconnect();
    }
  }, 60_000);
});

describe('valueSize', () => {
  it('is at least the JSON text and what its objects and arrays add', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const floor = JSON.stringify(value).length + CONTAINER_SIZE * containersIn(value);
        const size = valueSize(value, Number.MAX_SAFE_INTEGER);
        expect(size).toBeGreaterThanOrEqual(floor - escapeChars(value));
        expect(size).toBeLessThanOrEqual(2 * floor + 8);
      }),
      { numRuns: 500 },
    );
  });

  it('reads every item of a long array and a long string in it, and stops past the budget', () => {
    const items: unknown[] = new Array<unknown>(300_000).fill(0);
    items[7] = 'x'.repeat(5_000_000);
    expect(valueSize({ items }, Number.MAX_SAFE_INTEGER)).toBeGreaterThan(5_300_000);
    const holes: unknown[] = [];
    holes.length = 2 ** 32 - 1; // an in-process server's: past any budget before one item is read
    expect(valueSize(holes, 1_000_000)).toBeGreaterThan(1_000_000);
  });

  it('counts what JSON cannot carry, or cannot be read, as little, and the rest in full', () => {
    const hostile = {
      get boom(): never {
        throw new Error('boom');
      },
    };
    const blob = 'y'.repeat(1_000_000);
    expect(
      valueSize({ a: 10n, f: () => 1, hostile, blob }, Number.MAX_SAFE_INTEGER),
    ).toBeGreaterThan(1_000_000);
    expect(valueSize(hostile, 100)).toBeLessThan(100);
  });
});
