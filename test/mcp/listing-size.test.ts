/**
 * A hostile stdio server that lists page after page of schemas, each page
 * under the transport's 10 MB line and each fresh text: the connect
 * refuses the listing once the whole passes its bound, and says so, rather
 * than holding gigabytes until the page bound (1,000 pages) or the time
 * bound ends it. The server counts the pages it was asked for.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { McpIntegrationSection, McpServerUnavailable, Session } from '../../src/index.js';
import { CONTAINER_SIZE, valueSize } from '../../src/mcp/listing-size.js';
import { MAX_LISTING_SIZE } from '../../src/mcp/requests.js';
import { recordEvents } from '../support/mcp-fixtures.js';

/** About 9 MB of schemas a page: 9,000 properties of 1 KB each, new text every page. */
const SERVER = `
const { appendFileSync } = require('node:fs');
const readline = require('node:readline');
const counter = process.argv[1];
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
let page = 0;
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  if (message.method === 'initialize') {
    send({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion,
      capabilities: { tools: {} }, serverInfo: { name: 'hoarder', version: '1' } } });
  } else if (message.method === 'tools/list') {
    page += 1;
    appendFileSync(counter, '.');
    const properties = {};
    for (let i = 0; i < 9000; i++) {
      properties['p' + i] = { type: 'string', description: (page + ':' + i + ':').padEnd(1000, 'x') };
    }
    send({ jsonrpc: '2.0', id: message.id, result: {
      tools: [{ name: 'page' + page, inputSchema: { type: 'object', properties } }],
      nextCursor: 'page-' + page } });
  } else {
    send({ jsonrpc: '2.0', id: message.id, result: {} });
  }
});
`;

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the bound on a whole listing, over stdio', () => {
  it('refuses a server that lists schemas without end, at the bound, naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-sections-listing-'));
    dirs.push(dir);
    const counter = join(dir, 'pages');
    const session = new Session();
    const events = recordEvents(session);
    const section = new McpIntegrationSection({
      session,
      onConnectError: 'report',
      servers: [
        {
          name: 'hoarder',
          timeoutMs: 20_000,
          transport: { type: 'stdio', command: process.execPath, args: ['-e', SERVER, counter] },
        },
      ],
    });
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

/** The objects and arrays in `value`, itself included. */
function containersIn(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const members: unknown[] = Array.isArray(value) ? value : Object.values(value);
  return 1 + members.reduce((sum: number, member) => sum + containersIn(member), 0);
}

describe('valueSize', () => {
  it('is at least the JSON text and what its objects and arrays add', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const floor = JSON.stringify(value).length + CONTAINER_SIZE * containersIn(value);
        const size = valueSize(value, Number.MAX_SAFE_INTEGER);
        expect(size).toBeGreaterThanOrEqual(floor - escapes(value));
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

/** What JSON.stringify adds for escapes inside the strings of `value` (keys included). */
function escapes(value: unknown): number {
  if (typeof value === 'string') return JSON.stringify(value).length - value.length - 2;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + escapes(item), 0);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).reduce(
      (sum, [key, item]) => sum + escapes(key) + escapes(item),
      0,
    );
  }
  return 0;
}
