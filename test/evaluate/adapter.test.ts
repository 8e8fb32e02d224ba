import { describe, expect, it } from 'vitest';
import { parseToolArguments } from '../../src/ecosystem/openai.js';
import { toModelToolCall } from '../../src/evaluate/adapter.js';

describe('toModelToolCall', () => {
  it('carries parsed arguments as the input', () => {
    expect(toModelToolCall('c1', 'add', parseToolArguments('add', '{"a":1}'))).toEqual({
      id: 'c1',
      name: 'add',
      input: { a: 1 },
    });
  });

  it('turns arguments that are not JSON into the error the model is told', () => {
    const call = toModelToolCall('c2', 'add', parseToolArguments('add', '{"a":'));
    expect(call).toMatchObject({ id: 'c2', name: 'add', input: undefined });
    expect(call.error).toMatch(/add/);
  });
});
