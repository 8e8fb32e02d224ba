/**
 * A configured secret inside a URL's host name: the URL parser lowercases
 * the host, so masking by exact match misses it. `describeTransport` and
 * the connection failures the CLI reports mask it, compared
 * case-insensitively, in the host only.
 */
import { describe, expect, it } from 'vitest';
import type { ResolvedServerConfig } from '../../src/config/server-config.js';
import { describeTransport } from '../../src/cli/connect.js';
import { EXIT_CODES } from '../../src/cli/exit-codes.js';
import { describeNetworkFailure, hideSecretsInHosts } from '../../src/cli/network-errors.js';
import { SecretRedactor } from '../../src/mcp/redact.js';
import { runCliProcess } from './helpers.js';
import { configDir } from './mcp-host.js';

const SECRET = 'AbCdEfSecret';

function server(transport: Record<string, unknown>): ResolvedServerConfig {
  return { name: 's', transport } as unknown as ResolvedServerConfig;
}

describe('a secret in a host name', () => {
  it('is masked by describeTransport, from a query value or a header token', () => {
    expect(
      describeTransport(
        server({
          type: 'streamable-http',
          url: `http://${SECRET}.invalid:9/mcp/${SECRET}?k=${SECRET}`,
        }),
      ),
    ).toBe('streamable-http: http://***.invalid:9/mcp/***');
    expect(
      describeTransport(
        server({
          type: 'sse',
          url: 'https://tok-XyZ123.example.test/sse',
          headers: { Authorization: 'Bearer XyZ123' },
        }),
      ),
    ).toBe('sse: https://tok-***.example.test/sse');
    // A host without a secret is shown as it is.
    expect(
      describeTransport(server({ type: 'sse', url: 'https://mcp.example.test:8443/sse' })),
    ).toBe('sse: https://mcp.example.test:8443/sse');
  });

  it('is masked in a network failure, whatever its case', () => {
    expect(new SecretRedactor(['Example']).redactHost('api.example.test')).toBe('api.***.test');
    expect(new SecretRedactor(['other']).redactHost('API.example.test')).toBe('API.example.test');
    // Two letters are too short to be a secret: as the redactor's own rule has it.
    expect(new SecretRedactor(['ab']).redactHost('abc.test')).toBe('abc.test');
    hideSecretsInHosts(new SecretRedactor([SECRET, 'ab']));
    expect(
      describeNetworkFailure({ code: 'ENOTFOUND', host: 'abcdefsecret.invalid', port: 443 }),
    ).toBe('host ***.invalid, port 443: ENOTFOUND (host name not found)');
  });

  it('never shows in what inspect prints for a server it cannot reach', async () => {
    const dir = await configDir('cli-host-secrets');
    try {
      // Port 9 is one fetch refuses before any lookup: nothing leaves the machine.
      const config = await dir.write('servers.json', {
        h: { type: 'http', url: `http://${SECRET}.invalid:9/mcp?k=${SECRET}` },
      });
      const run = await runCliProcess(['inspect', config]);
      expect(run.code).toBe(EXIT_CODES.connection);
      const output = run.stdout + run.stderr;
      expect(output).toContain('http://***.invalid:9/mcp');
      expect(output).toContain('host ***.invalid, port 9');
      expect(output.toLowerCase()).not.toContain(SECRET.toLowerCase());
    } finally {
      await dir.remove();
    }
  });
});
