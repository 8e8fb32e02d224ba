import { afterEach, describe, expect, it } from 'vitest';
import {
  describeNetworkFailure,
  findNetworkFailure,
  installFetchDiagnostics,
} from '../../src/cli/network-errors.js';
import { freePort } from '../support/ports.js';

describe('findNetworkFailure', () => {
  it('walks the cause chain and AggregateError.errors for the system code', () => {
    const inner = Object.assign(new Error('connect ECONNREFUSED ::1:80'), {
      code: 'ECONNREFUSED',
      address: '::1',
      port: 80,
    });
    const error = new TypeError('fetch failed', { cause: new AggregateError([inner]) });
    expect(findNetworkFailure(error)).toEqual({ code: 'ECONNREFUSED', host: '::1', port: 80 });
    const bare = new TypeError('fetch failed', {
      cause: Object.assign(new Error('x'), { code: 'ENOTFOUND' }),
    });
    expect(findNetworkFailure(bare, new URL('https://nohost.invalid/mcp'))).toEqual({
      code: 'ENOTFOUND',
      host: 'nohost.invalid',
      port: 443,
    });
    expect(findNetworkFailure(new Error('plain'))).toBeUndefined();
  });

  it('describes a failure with host, port, code and meaning', () => {
    expect(describeNetworkFailure({ code: 'ECONNREFUSED', host: '127.0.0.1', port: 9 })).toBe(
      'host 127.0.0.1, port 9: ECONNREFUSED (connection refused: nothing listens there)',
    );
    expect(describeNetworkFailure({ code: 'EWEIRD' })).toBe('EWEIRD');
  });
});

describe('installFetchDiagnostics', () => {
  let uninstall: (() => void) | undefined;
  afterEach(() => uninstall?.());

  it('rejects a refused fetch with host, port and ECONNREFUSED, and uninstalls', async () => {
    const original = globalThis.fetch;
    uninstall = installFetchDiagnostics();
    const port = await freePort();
    const error: unknown = await fetch(`http://127.0.0.1:${port}/mcp`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      `fetch failed: host 127.0.0.1, port ${port}: ECONNREFUSED (connection refused: nothing listens there)`,
    );
    uninstall();
    expect(globalThis.fetch).toBe(original);
  });
});
