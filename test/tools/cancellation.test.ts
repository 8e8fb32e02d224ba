import { describe, expect, it } from 'vitest';
import { cancellationMessage, notStartedMessage } from '../../src/tools/cancellation.js';

function aborted(reason?: unknown): AbortSignal {
  const controller = new AbortController();
  controller.abort(reason);
  return controller.signal;
}

describe('cancellationMessage', () => {
  it("gives an Error reason's message, a string reason, or 'aborted'", () => {
    expect(cancellationMessage(aborted(new Error('user left')))).toBe('cancelled: user left');
    expect(cancellationMessage(aborted('stop'))).toBe('cancelled: stop');
    expect(cancellationMessage(aborted(''))).toBe('cancelled: aborted');
    expect(cancellationMessage(aborted(42))).toBe('cancelled: aborted');
  });

  it('names the tool that was not started', () => {
    expect(notStartedMessage('pay', aborted('stop'))).toBe(
      'tool "pay" was not started: cancelled: stop',
    );
  });
});
