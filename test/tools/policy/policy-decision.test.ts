import { describe, expect, it } from 'vitest';
import { PolicyDecision, PromptValidationError } from '../../../src/index.js';

describe('PolicyDecision', () => {
  it('builds frozen decisions with trimmed reasons', () => {
    expect(PolicyDecision.allow()).toEqual({ kind: 'allow' });
    expect(PolicyDecision.deny('  not now ')).toEqual({ kind: 'deny', reason: 'not now' });
    expect(PolicyDecision.ask('costly')).toEqual({ kind: 'ask', reason: 'costly' });
    expect(Object.isFrozen(PolicyDecision.deny('x'))).toBe(true);
    expect(Object.isFrozen(PolicyDecision.allow())).toBe(true);
  });

  it.each(['deny', 'ask'] as const)('%s refuses an empty reason, quoting it', (kind) => {
    expect(() => PolicyDecision[kind]('  ')).toThrow(PromptValidationError);
    expect(() => PolicyDecision[kind]('  ')).toThrow(
      `PolicyDecision.${kind} needs a reason the model can read, a non-empty string; received "  "`,
    );
  });

  it('is() accepts decisions and plain objects of the same shape, nothing else', () => {
    expect(PolicyDecision.is(PolicyDecision.allow())).toBe(true);
    expect(PolicyDecision.is({ kind: 'deny', reason: 'r' })).toBe(true);
    expect(PolicyDecision.is({ kind: 'ask', reason: 'r' })).toBe(true);
    for (const value of [
      null,
      'allow',
      true,
      {},
      { kind: 'deny' },
      { kind: 'ask', reason: '' },
      { kind: 'maybe', reason: 'r' },
    ]) {
      expect(PolicyDecision.is(value)).toBe(false);
    }
  });
});
