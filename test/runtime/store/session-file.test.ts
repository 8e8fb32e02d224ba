/**
 * The session file format: a record written and read back is the same;
 * `format` and `version` lead so `version()` reads a few bytes; anything
 * else is corruption that fails the load rather than lowering a level.
 */
import { describe, expect, it } from 'vitest';
import { SessionStoreError } from '../../../src/runtime/store/errors.js';
import {
  defaultSessionDirectory,
  emptyRecord,
  parseRecord,
  serializeRecord,
  sessionFileName,
  VERSION_PREFIX,
} from '../../../src/runtime/store/session-file.js';
import { privateDataState } from '../../../src/runtime/store/session-store.js';

function corrupt(text: string, sessionId = 's'): SessionStoreError {
  try {
    parseRecord(text, '/state/s.json', sessionId);
  } catch (error) {
    expect(error).toBeInstanceOf(SessionStoreError);
    return error as SessionStoreError;
  }
  throw new Error('expected a SessionStoreError');
}

describe('session file', () => {
  it('reads back what it wrote, dataset names such as __proto__ included', () => {
    const datasets = Object.create(null) as Record<string, 'secret' | 'internal'>;
    datasets['__proto__'] = 'secret';
    datasets['crm'] = 'internal';
    const record = {
      version: 3,
      sessionId: 's',
      privateData: privateDataState('secret', datasets),
      slices: { notes: { lines: ['a'] } },
    };
    const text = serializeRecord(record);
    expect(VERSION_PREFIX.exec(text)?.[1]).toBe('3');
    const back = parseRecord(text, '/state/s.json', 's');
    expect(back.version).toBe(3);
    expect(back.slices).toEqual({ notes: { lines: ['a'] } });
    expect(back.privateData.sensitivity).toBe('secret');
    expect(Object.getOwnPropertyDescriptor(back.privateData.datasets, '__proto__')?.value).toBe(
      'secret',
    );
    expect(parseRecord(serializeRecord(emptyRecord('e')), 'f', 'e').version).toBe(0);
  });

  it('fails the load on a bad level, another session, or text that is not a record', () => {
    const good = JSON.parse(serializeRecord(emptyRecord('s'))) as {
      privateData: { datasets: Record<string, string> };
    };
    good.privateData.datasets = { crm: 'top-secret' };
    expect(corrupt(JSON.stringify(good)).message).toContain('"crm" has level "top-secret"');
    expect(corrupt(serializeRecord(emptyRecord('other'))).message).toContain(
      'holds session "other"',
    );
    expect(corrupt('{"format":1').code).toBe('store-corrupt');
  });

  it('names files by a hash of the id, and keeps them out of the project', () => {
    expect(sessionFileName('../../etc/passwd')).toMatch(/^[0-9a-f]{64}\.json$/);
    expect(sessionFileName('a')).not.toBe(sessionFileName('b'));
    expect(defaultSessionDirectory({ XDG_STATE_HOME: '/xdg' }, '/home/u')).toBe(
      '/xdg/mcp-sections/sessions',
    );
    expect(defaultSessionDirectory({ XDG_STATE_HOME: 'relative' }, '/home/u')).toBe(
      '/home/u/.local/state/mcp-sections/sessions',
    );
  });
});
