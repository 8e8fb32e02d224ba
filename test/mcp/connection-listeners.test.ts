/**
 * Pins `ConnectionListeners`: every listener hears each event with its
 * payload, in order of addition; the remover stops one listener only; a
 * throwing listener or a missing method never stops the others; a listener
 * removed during an emit still hears that emit.
 */
import { describe, expect, it } from 'vitest';
import {
  ConnectionListeners,
  type ConnectionListener,
} from '../../src/mcp/connection-listeners.js';

describe('ConnectionListeners', () => {
  it('tells every listener, in order, with the payload', () => {
    const listeners = new ConnectionListeners();
    const heard: string[] = [];
    listeners.add({ failed: (info) => heard.push(`a:${info.reason}`) });
    listeners.add({ failed: (info) => heard.push(`b:${info.reason}`) });
    listeners.emit('failed', { reason: 'spawn ENOENT' });
    expect(heard).toEqual(['a:spawn ENOENT', 'b:spawn ENOENT']);
  });

  it('skips listeners without the method and survives one that throws', () => {
    const listeners = new ConnectionListeners();
    const heard: unknown[] = [];
    listeners.add({});
    listeners.add({
      disconnected: () => {
        throw new Error('listener bug');
      },
    });
    listeners.add({ disconnected: (info) => heard.push(info) });
    expect(() => listeners.emit('disconnected', { expected: false, reason: 'EOF' })).not.toThrow();
    expect(heard).toEqual([{ expected: false, reason: 'EOF' }]);
  });

  it('stops telling a removed listener; removing twice is harmless', () => {
    const listeners = new ConnectionListeners();
    const heard: number[] = [];
    const remove = listeners.add({ connected: (info) => heard.push(info.toolCount) });
    listeners.add({ connected: (info) => heard.push(info.toolCount * 10) });
    listeners.emit('connected', { transport: 'stdio', toolCount: 1, reconnect: false });
    remove();
    remove();
    listeners.emit('connected', { transport: 'stdio', toolCount: 2, reconnect: true });
    expect(heard).toEqual([1, 10, 20]);
  });

  it('adds the same listener object once', () => {
    const listeners = new ConnectionListeners();
    let count = 0;
    const listener: ConnectionListener = { toolsChanged: () => (count += 1) };
    listeners.add(listener);
    listeners.add(listener);
    listeners.emit('toolsChanged', []);
    expect(count).toBe(1);
  });

  it('emits to a snapshot: a listener removed or added mid-emit does not change that emit', () => {
    const listeners = new ConnectionListeners();
    const heard: string[] = [];
    let removeSecond = (): void => undefined;
    listeners.add({
      log: (message) => {
        heard.push(`first:${String(message.data)}`);
        removeSecond();
        listeners.add({ log: () => heard.push('late') });
      },
    });
    removeSecond = listeners.add({
      log: (message) => heard.push(`second:${String(message.data)}`),
    });
    listeners.emit('log', { level: 'info', data: 'x' });
    expect(heard).toEqual(['first:x', 'second:x']);
  });
});
