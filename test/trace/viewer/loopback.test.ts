import { describe, expect, it } from 'vitest';
import { TraceError } from '../../../src/index.js';
import { loopbackAddress } from '../../../src/trace/viewer/loopback.js';

describe('loopbackAddress', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['127.1.2.3', '127.1.2.3'],
    ['localhost', '127.0.0.1'],
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
  ])('binds %s as %s', (host, address) => {
    expect(loopbackAddress(host)).toBe(address);
  });

  it.each(['0.0.0.0', '::', '192.168.1.2', 'example.com', '128.0.0.1', '::ffff:127.0.0.1', ''])(
    'refuses %j, naming it',
    (host) => {
      expect(() => loopbackAddress(host)).toThrow(
        new TraceError(
          'trace-options',
          `host ${JSON.stringify(host)} is not a loopback address: the viewer binds 127.0.0.1, ::1 or localhost only, so that no other machine can read the trace`,
        ),
      );
    },
  );
});
