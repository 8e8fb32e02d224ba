import { describe, expect, it } from 'vitest';
import { callOutcome } from '../../src/trace/call-outcome.js';

describe('callOutcome', () => {
  it.each([
    [true, 'OK', false, 'success'],
    [false, 'tool "x" of server "s" timed out after 300 ms', true, 'timed-out'],
    [false, 'invalid arguments for tool "s_x": a: expected number', false, 'refused'],
    [false, 'tool "s_x" is blocked: the session holds private data, ...', false, 'refused'],
    [
      false,
      'tool "t" was not started: its deadline 2026-01-01T00:00:00.000Z had passed',
      false,
      'refused',
    ],
    [
      false,
      'tool "x" of server "s" was not called: the session store could not be read',
      false,
      'refused',
    ],
    [false, 'tool "x" of server "s" failed: boom', false, 'rolled-back'],
    [false, 'my handler says: invalid arguments for tool "x"', false, 'rolled-back'],
  ] as const)(
    'success %s, message %j, timeout event %s: %s',
    (success, message, timedOut, outcome) => {
      expect(callOutcome(success, message, timedOut)).toBe(outcome);
    },
  );

  it('counts a call a policy denied as refused, whatever its message', () => {
    const message = 'tool "pay" was denied by policy "require-approval": not approved';
    expect(callOutcome(false, message, false, true)).toBe('refused');
    expect(callOutcome(false, message, false, false)).toBe('rolled-back');
  });
});
