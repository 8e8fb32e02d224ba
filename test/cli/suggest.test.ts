import { describe, expect, it } from 'vitest';
import { candidateLines, closestNames } from '../../src/cli/suggest.js';

describe('closestNames', () => {
  it('guesses by edit distance, also against the part after the server', () => {
    expect(closestNames('gret', ['greet', 'ping'])).toEqual(['greet']);
    expect(closestNames('pong', ['srv_greet', 'srv_ping'])).toEqual(['srv_ping']);
    expect(closestNames('zzzzzz', ['greet', 'ping'])).toEqual([]);
  });
});

describe('candidateLines', () => {
  it('puts a guess first, then one candidate per line', () => {
    expect(candidateLines('everythin', ['everything', 'down'], 'configured servers')).toEqual([
      'did you mean everything?',
      'configured servers:',
      '  everything',
      '  down',
    ]);
    expect(candidateLines('x', [], 'tools')).toEqual(['tools:', '  (none)']);
  });
});
