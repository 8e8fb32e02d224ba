import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadMcpConfig } from '../../src/server/index.js';

const dir = new URL('../../examples/template/', import.meta.url);

interface ComposeService {
  image?: string;
  networks?: string[];
  volumes?: string[];
  ports?: string[];
  environment?: Record<string, string>;
}

describe('template deployment files', () => {
  it('runs two services from one image, the isolated one on an internal network only', async () => {
    const compose = parse(await readFile(new URL('docker-compose.yaml', dir), 'utf8'), {
      merge: true,
    }) as {
      services: Record<string, ComposeService>;
      networks: Record<string, { internal?: boolean } | null>;
    };
    const normal = compose.services['template'];
    const isolated = compose.services['template-isolated'];
    expect(normal?.image).toBe(isolated?.image);
    expect(isolated?.networks).toEqual(['isolated']);
    expect(compose.networks['isolated']?.internal).toBe(true);
    expect(normal?.networks).not.toContain('isolated');
    expect(isolated?.ports).toBeUndefined();
    // The same workspace and private-data volumes on both.
    expect(isolated?.volumes).toEqual(normal?.volumes);
    expect(normal?.volumes).toEqual([
      'workspaces:/srv/workspaces',
      'private-data:/srv/private-data',
    ]);
    expect([normal?.environment?.['INSTANCE'], isolated?.environment?.['INSTANCE']]).toEqual([
      'normal',
      'isolated',
    ]);
  });

  it('ships a client config that loads, with both URLs', async () => {
    const [server] = await loadMcpConfig(new URL('config.yaml', dir).pathname, {
      env: { TEMPLATE_TOKEN: 'jwt' },
      dotenv: false,
    });
    const headers = { Authorization: 'Bearer jwt' };
    expect(server?.transport).toEqual({
      type: 'streamable-http',
      url: 'http://127.0.0.1:8000/mcp',
      headers,
    });
    expect(server?.isolation?.transport).toEqual({
      type: 'streamable-http',
      url: 'http://127.0.0.1:8001/mcp',
      headers,
    });
    expect(server?.permissions?.['fetch_url']).toEqual(['connect']);
    expect(server?.sensitiveTools).toEqual({ load_sensitive_dataset: 'confidential' });
  });
});
