import { describe, expect, it } from 'vitest';
import { ResourceRegistry } from '../../src/index.js';

class ConnectionPool {
  constructor(readonly size: number) {}
}
class Clock {}

describe('ResourceRegistry', () => {
  it('looks resources up by class', () => {
    const pool = new ConnectionPool(4);
    const registry = new ResourceRegistry().set(ConnectionPool, pool);
    expect(registry.get(ConnectionPool)).toBe(pool);
    expect(registry.require(ConnectionPool).size).toBe(4);
    expect(registry.has(ConnectionPool)).toBe(true);
    expect(registry.has(Clock)).toBe(false);
    expect(registry.get(Clock)).toBeUndefined();
  });

  it('replaces an earlier resource of the same class', () => {
    const registry = new ResourceRegistry();
    registry.set(ConnectionPool, new ConnectionPool(1)).set(ConnectionPool, new ConnectionPool(2));
    expect(registry.require(ConnectionPool).size).toBe(2);
  });

  it('names the class when a required resource is missing', () => {
    expect(() => new ResourceRegistry().require(Clock)).toThrow('no resource registered for Clock');
  });
});
