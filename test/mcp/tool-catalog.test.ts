/**
 * The tool catalog: a server's tools bridged under its prefix, an
 * unchanged tool kept as the same object across a refresh, and a server
 * whose list cannot be published (a name used twice, in it or across
 * servers) left with no tools at all.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpSchemaError, Session } from '../../src/index.js';
import { DEFAULT_RETRY } from '../../src/mcp/retry-policy.js';
import type { ServerRoute } from '../../src/mcp/server-route.js';
import { originalName, ToolCatalog } from '../../src/mcp/tool-catalog.js';
import { rawToolServer, type RawTool } from '../support/mcp-fixtures.js';
import { handMadeRoute } from '../support/quiet-route-listener.js';

const routes: ServerRoute[] = [];
afterEach(async () => {
  await Promise.all(routes.splice(0).map((route) => route.close()));
});

async function routeOf(name: string, tools: readonly RawTool[], toolPrefix?: string) {
  const route = handMadeRoute({
    name,
    ...(toolPrefix === undefined ? {} : { toolPrefix }),
    transport: { type: 'in-memory', server: rawToolServer(tools).server },
  });
  routes.push(route);
  await route.connect();
  return route;
}

const tool = (name: string, schema: Record<string, unknown> = { type: 'object' }): RawTool => ({
  name,
  inputSchema: schema,
});

describe('ToolCatalog', () => {
  it('bridges a server under its prefix and keeps unchanged tools on refresh', async () => {
    const route = await routeOf('files', [tool('read'), tool('write')]);
    const catalog = new ToolCatalog(new Session(), DEFAULT_RETRY);
    const first = catalog.refresh(route, [route]);
    expect(first.map((t) => t.name)).toEqual(['files_read', 'files_write']);
    expect(first.map(originalName)).toEqual(['read', 'write']);
    const again = catalog.refresh(route, [route]);
    expect(again[0]).toBe(first[0]);
    expect(catalog.all).toEqual(again);
  });

  it('leaves a server with no tools when its names collide with another server', async () => {
    const alpha = await routeOf('alpha', [tool('echo')], 'shared');
    const beta = await routeOf('beta', [tool('echo')], 'shared');
    const catalog = new ToolCatalog(new Session(), DEFAULT_RETRY);
    catalog.refresh(alpha, [alpha, beta]);
    expect(() => catalog.refresh(beta, [alpha, beta])).toThrow(McpSchemaError);
    expect(catalog.of('beta')).toEqual([]);
    expect(catalog.all.map((t) => t.name)).toEqual(['shared_echo']);
  });

  it('refuses a list with a schema that cannot be checked in bounded work', async () => {
    const route = await routeOf('loop', [
      tool('bad', { type: 'object', $defs: { a: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }),
    ]);
    const catalog = new ToolCatalog(new Session(), DEFAULT_RETRY);
    expect(() => catalog.refresh(route, [route])).toThrow(/loop without any data/);
    expect(catalog.all).toEqual([]);
  });
});
