/**
 * What a server says when it fails reaches reasons, events and results cut
 * to a bounded length once masked: a 500 page of a megabyte, a JSON-RPC
 * error of 100,000 characters.
 */
import { McpError as RpcError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { boundedQuote, MAX_QUOTED_CHARS } from '../../src/core/errors.js';
import { isWellFormed } from '../../src/core/well-formed.js';
import { invokeTool, McpServerUnavailable, McpToolProgress } from '../../src/index.js';
import {
  type HttpHost,
  rawToolServer,
  observedSection,
  startHttpHost,
  toolNamed,
} from '../support/mcp-fixtures.js';

const BOUND = MAX_QUOTED_CHARS + 100; // the cut text, plus the library's own words

const hosts: HttpHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

describe('boundedQuote', () => {
  it('keeps short text, cuts long text with the count of what was left out, never in a pair', () => {
    expect(boundedQuote('short')).toBe('short');
    const long = 'a'.repeat(MAX_QUOTED_CHARS - 1) + '😀' + 'b'.repeat(10);
    const cut = boundedQuote(long);
    expect(cut).toBe(`${'a'.repeat(MAX_QUOTED_CHARS - 1)}… (12 more characters)`);
    expect(isWellFormed(cut)).toBe(true);
  });

  it('writes a lone surrogate of the quoted text as U+FFFD', () => {
    expect(boundedQuote('bad \uDC00 text \uD83D')).toBe('bad \uFFFD text \uFFFD');
  });
});

describe('a failing server says a bounded amount', () => {
  it('in the reason and the event of a connect answered by a megabyte page', async () => {
    const host = await startHttpHost(async (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`upstream failed\n${'detail '.repeat(150_000)}`);
      await Promise.resolve();
    });
    hosts.push(host);
    const { events, section } = observedSection([
      {
        name: 'web',
        transport: { type: 'streamable-http', url: host.url('/mcp'), sseFallback: false },
      },
    ]);
    try {
      await section.connect();
      const reason = section.unavailableServers[0]?.reason ?? '';
      expect(reason).toContain('upstream failed');
      expect(reason).toMatch(/more characters\)/);
      expect(reason.length).toBeLessThan(BOUND);
      const published = events.of(McpServerUnavailable);
      expect(published.length).toBeGreaterThan(0);
      for (const event of published) expect(event.reason.length).toBeLessThan(BOUND);
    } finally {
      await section.disconnect();
    }
  });

  it("in a call's result when the server's JSON-RPC error is huge, masked before the cut", async () => {
    const secret = 'sk-live-0123456789';
    const { server } = rawToolServer([
      {
        name: 'explode',
        inputSchema: { type: 'object' },
        annotations: { openWorldHint: false },
        handler: () => {
          // The secret sits across the place a cut before masking would make.
          const head = 'x'.repeat(MAX_QUOTED_CHARS - 140);
          throw new RpcError(-32_000, `${head}${secret}${'y'.repeat(100_000)}`);
        },
      },
    ]);
    const { session, section } = observedSection([
      { name: 'raw', transport: { type: 'in-memory', server }, secrets: [secret] },
    ]);
    try {
      await section.connect();
      const result = await invokeTool(toolNamed(section, 'raw_explode'), {}, { session });
      expect(result.success).toBe(false);
      expect(result.message).toMatch(/more characters\)$/);
      expect(result.message.length).toBeLessThan(BOUND);
      expect(result.message).not.toContain(secret.slice(0, 8));
    } finally {
      await section.disconnect();
    }
  });

  it('in a progress message', async () => {
    const { server } = rawToolServer([
      {
        name: 'slow',
        inputSchema: { type: 'object' },
        annotations: { openWorldHint: false },
        handler: async (_args, extra) => {
          const token = extra._meta?.progressToken;
          if (token !== undefined) {
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: 1, message: 'z'.repeat(100_000) },
            });
          }
          return { content: [{ type: 'text', text: 'done' }] };
        },
      },
    ]);
    const { session, events, section } = observedSection([
      { name: 'raw', transport: { type: 'in-memory', server } },
    ]);
    try {
      await section.connect();
      expect((await invokeTool(toolNamed(section, 'raw_slow'), {}, { session })).success).toBe(
        true,
      );
      const [progress] = events.of(McpToolProgress);
      expect(progress?.message).toMatch(/more characters\)$/);
      expect(progress?.message?.length).toBeLessThan(BOUND);
    } finally {
      await section.disconnect();
    }
  });
});
