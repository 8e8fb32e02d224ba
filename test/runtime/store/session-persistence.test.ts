import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SensitivityEscalated } from '../../../src/runtime/events.js';
import { Session } from '../../../src/runtime/session.js';
import { SessionStoreError } from '../../../src/runtime/store/errors.js';
import { FileSessionStore } from '../../../src/runtime/store/file-session-store.js';
import { defineEvent } from '../../../src/runtime/define-event.js';
import type { SerializedSessionEvent } from '../../../src/runtime/store/event-serialization.js';
import { type SessionStore, privateDataState } from '../../../src/runtime/store/session-store.js';
import { ControlledStore } from '../../fixtures/sessions/controlled-store.js';
import { waitFor } from '../../support/processes.js';

class Noted extends defineEvent<{ readonly sessionId: string; readonly text: string }>() {}

/** `inner` with an event stream that collects the entries it is given. */
function streamStore(inner: SessionStore, entries: SerializedSessionEvent[]): SessionStore {
  return {
    load: (id, options) => inner.load(id, options),
    readPrivateData: (id, options) => inner.readPrivateData(id, options),
    version: (id, options) => inner.version(id, options),
    mergePrivateData: (id, state, options) => inner.mergePrivateData(id, state, options),
    saveSlices: (id, slices, options) => inner.saveSlices(id, slices, options),
    delete: (id, options) => inner.delete(id, options),
    appendEvent: (_id, event) => {
      entries.push(event);
      return Promise.resolve();
    },
    close: () => inner.close(),
  };
}

let directory: string;
let files: FileSessionStore;

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'mcp-sections-persistence-'));
  files = new FileSessionStore({ directory });
});

afterEach(async () => {
  await files.close();
  await rm(directory, { recursive: true, force: true });
});

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('Session.open with a store', () => {
  it('resumes the level, the datasets and the persistent slices; other slices start fresh', async () => {
    const first = await Session.open({ sessionId: 'conv', store: files });
    const notes = first.slice('notes', { initial: { items: [] as string[] }, persistent: true });
    const scratch = first.slice('scratch', { initial: { n: 0 } });
    first.privateData.add('payroll', 'secret');
    first.privateData.add('wiki', 'internal');
    notes.update((draft) => {
      draft.items.push('remember');
    });
    scratch.update((draft) => {
      draft.n = 5;
    });
    await first.flush();

    const rises: SensitivityEscalated[] = [];
    const second = new Session({ sessionId: 'conv', store: new FileSessionStore({ directory }) });
    second.bus.subscribe(SensitivityEscalated, (event) => rises.push(event));
    await second.ready;
    expect(second.loaded).toBe(true);
    expect(second.privateData.sensitivity).toBe('secret');
    expect(Object.fromEntries(second.privateData.datasets)).toEqual({
      payroll: 'secret',
      wiki: 'internal',
    });
    expect(rises.map((event) => event.sensitivity)).toEqual(['secret']);
    expect(second.slice('notes', { initial: { items: ['x'] }, persistent: true }).get()).toEqual({
      items: ['remember'],
    });
    expect(second.slice('scratch', { initial: { n: 0 } }).get()).toEqual({ n: 0 });
    expect(second.hasPendingPrivateData).toBe(false);
  });

  it('is unusable for persistence until loaded: a persistent slice throws, flush waits', async () => {
    const store = new ControlledStore(files);
    const session = new Session({ sessionId: 'conv', store });
    expect(session.loaded).toBe(false);
    expect(() => session.slice('notes', { initial: 1, persistent: true })).toThrow(
      /before the stored state was loaded/,
    );
    session.privateData.add('crm', 'confidential');
    await session.flush();
    expect(session.loaded).toBe(true);
    expect(store.count('load')).toBe(1);
    expect((await files.readPrivateData('conv')).privateData.sensitivity).toBe('confidential');
  });

  it('keeps an escalation made before the load finished, even below the stored level', async () => {
    await files.mergePrivateData('conv', privateDataState('secret', { hr: 'secret' }));
    const session = new Session({ sessionId: 'conv', store: files });
    session.privateData.add('wiki', 'internal');
    await session.ready;
    expect(session.privateData.sensitivity).toBe('secret');
    expect(session.hasPendingPrivateData).toBe(true);
    await session.flushPrivateData();
    expect((await files.readPrivateData('conv')).privateData.datasets).toEqual({
      hr: 'secret',
      wiki: 'internal',
    });
  });

  it('rejects with session-not-loaded when the stored state cannot be read', async () => {
    await writeFile(files.pathOf('conv'), 'not json');
    const error = await errorOf(Session.open({ sessionId: 'conv', store: files }));
    expect((error as SessionStoreError).code).toBe('session-not-loaded');
    expect((error as Error).cause).toBeInstanceOf(SessionStoreError);
    const session = new Session({ sessionId: 'conv', store: files });
    const flushed = await errorOf(session.flush());
    expect((flushed as SessionStoreError).code).toBe('session-not-loaded');
  });

  it('never stores a lower level after restore()', async () => {
    const session = await Session.open({ sessionId: 'conv', store: files });
    const before = session.snapshot();
    session.privateData.add('hr', 'secret');
    session.restore(before);
    await session.flush();
    const reopened = await Session.open({ sessionId: 'conv', store: files });
    expect(reopened.privateData.sensitivity).toBe('secret');
  });

  it('accepts only JSON data in a persistent slice', async () => {
    const session = await Session.open({ sessionId: 'conv', store: files });
    expect(() => session.slice('when', { initial: new Date(0), persistent: true })).toThrow(
      /slice "when" is a Date/,
    );
    const slice = session.slice<{ items: Record<string, unknown> }>('bag', {
      initial: { items: {} },
      persistent: true,
    });
    expect(() =>
      slice.update((draft) => {
        draft.items['m'] = new Map();
      }),
    ).toThrow(/slice "bag".items.m is a Map/);
    expect(slice.get()).toEqual({ items: {} });
    expect(() =>
      slice.update((draft) => {
        draft.items['n'] = Number.NaN;
      }),
    ).toThrow(TypeError);
  });

  it('refuses a persistent slice name with a lone surrogate, which a store would merge with another', async () => {
    const session = await Session.open({ sessionId: 'conv', store: files });
    expect(() => session.slice('notes\uD800', { initial: 1, persistent: true })).toThrow(
      /persistent slice name "notes\\ud800" holds a lone surrogate/,
    );
    // Only persistence needs it: a slice kept in memory may have any name.
    expect(session.slice('notes\uD800', { initial: 1 }).get()).toBe(1);
  });

  it('writes only the persistent slices that changed since the last flush', async () => {
    const store = new ControlledStore(files);
    const session = await Session.open({ sessionId: 'conv', store });
    const a = session.slice('a', { initial: { n: 0 }, persistent: true });
    session.slice('b', { initial: { n: 0 }, persistent: true });
    await session.flush();
    a.update((draft) => {
      draft.n = 1;
    });
    await session.flush();
    await session.flush();
    expect(store.savedSlices).toEqual([{ a: { n: 0 }, b: { n: 0 } }, { a: { n: 1 } }]);
  });

  it('needs a store with an event stream to mirror events', () => {
    expect(() => new Session({ store: files, mirrorEvents: true })).toThrow(/mirrorEvents/);
    expect(() => new Session({ store: files, mirrorEvents: {} })).toThrow(/mirrorEvents/);
  });

  it('mirrors through the mask it is given, telling it whether the session holds private data', async () => {
    const entries: SerializedSessionEvent[] = [];
    const store = streamStore(files, entries);
    const seen: boolean[] = [];
    const session = await Session.open({
      sessionId: 'masked',
      store,
      mirrorEvents: {
        mask: (event, { hasPrivateData }) => {
          seen.push(hasPrivateData);
          if (event instanceof Noted && event.text === 'throw') throw new Error('mask failed');
          return { type: 'Masked', data: '{}' };
        },
      },
    });
    session.dispatch(new Noted({ sessionId: 'masked', text: 'a' }));
    // A mask that throws loses that event only; dispatch goes on.
    session.dispatch(new Noted({ sessionId: 'masked', text: 'throw' }));
    session.privateData.add('hr', 'secret');
    await waitFor(() => entries.length === 2, { timeoutMs: 5_000, description: 'two entries' });
    expect(entries).toEqual([
      { type: 'Masked', data: '{}' },
      { type: 'Masked', data: '{}' },
    ]);
    expect(seen).toEqual([false, false, true]);
  });

  it('mirrors who and when only when no mask is given', async () => {
    const entries: SerializedSessionEvent[] = [];
    const session = await Session.open({
      sessionId: 'plain',
      store: streamStore(files, entries),
      mirrorEvents: true,
    });
    session.dispatch(new Noted({ sessionId: 'plain', text: 'password hunter2-pw' }));
    await waitFor(() => entries.length === 1, { timeoutMs: 5_000, description: 'one entry' });
    expect(entries[0]?.type).toBe('Noted');
    expect(JSON.parse(entries[0]!.data)).toEqual({ sessionId: 'plain', withheld: 'no-mask' });
  });

  it('is a no-op without a store', async () => {
    const session = await Session.open();
    session.privateData.add('hr', 'secret');
    expect(session.store).toBeUndefined();
    expect(session.hasPendingPrivateData).toBe(false);
    await session.flush();
    await session.syncFromStore();
    session.slice('notes', { initial: 1, persistent: true });
  });
});

describe('pending escalations', () => {
  it('stay pending while the store is down and land once it is back', async () => {
    const store = new ControlledStore(files);
    const session = await Session.open({ sessionId: 'conv', store });
    store.down = true;
    session.privateData.add('hr', 'secret');
    expect(session.hasPendingPrivateData).toBe(true);
    const error = await errorOf(session.flush());
    expect((error as SessionStoreError).code).toBe('store-unavailable');
    expect(await errorOf(session.flushPrivateData())).toBeInstanceOf(SessionStoreError);
    expect(session.hasPendingPrivateData).toBe(true);
    expect(session.privateData.sensitivity).toBe('secret');
    expect(await files.load('conv')).toBeUndefined();
    store.down = false;
    await session.flushPrivateData();
    expect(session.hasPendingPrivateData).toBe(false);
    expect((await files.readPrivateData('conv')).privateData.datasets).toEqual({ hr: 'secret' });
  });

  it('are written in the background when application code forgets to flush', async () => {
    const session = await Session.open({ sessionId: 'conv', store: files });
    session.privateData.add('hr', 'secret');
    await waitFor(async () => (await files.version('conv')) > 0, {
      timeoutMs: 5_000,
      description: 'the background flush',
    });
    expect((await files.readPrivateData('conv')).privateData.sensitivity).toBe('secret');
    await waitFor(() => !session.hasPendingPrivateData, {
      timeoutMs: 5_000,
      description: 'the session to see it durable',
    });
  });

  it('land once for a dataset whose name is shortened, and stay landed when read back', async () => {
    const session = await Session.open({ sessionId: 'conv', store: files });
    session.privateData.add('n'.repeat(300), 'secret');
    await session.flushPrivateData();
    expect(session.hasPendingPrivateData).toBe(false);
    await session.syncFromStore();
    await session.flushPrivateData();
    expect(session.hasPendingPrivateData).toBe(false);
    expect(session.privateData.datasets.size).toBe(1);
    const stored = (await files.readPrivateData('conv')).privateData.datasets;
    expect(Object.keys(stored)).toEqual([...session.privateData.datasets.keys()]);
    const resumed = await Session.open({
      sessionId: 'conv',
      store: new FileSessionStore({ directory }),
    });
    expect([...resumed.privateData.datasets]).toEqual([...session.privateData.datasets]);
    expect(resumed.hasPendingPrivateData).toBe(false);
  });

  it('are written again when the store lost them', async () => {
    const session = await Session.open({ sessionId: 'conv', store: files });
    session.privateData.add('hr', 'secret');
    await session.flush();
    await files.delete('conv');
    await session.syncFromStore();
    expect(session.hasPendingPrivateData).toBe(true);
    await session.flushPrivateData();
    expect((await files.readPrivateData('conv')).privateData.datasets).toEqual({ hr: 'secret' });
  });
});

describe('syncFromStore', () => {
  it('reads only the version when nothing changed, and merges what another worker stored', async () => {
    const store = new ControlledStore(files);
    const worker = await Session.open({ sessionId: 'conv', store });
    const other = await Session.open({
      sessionId: 'conv',
      store: new FileSessionStore({ directory }),
    });
    const rises: SensitivityEscalated[] = [];
    worker.bus.subscribe(SensitivityEscalated, (event) => rises.push(event));

    await worker.syncFromStore();
    await worker.syncFromStore();
    expect(store.count('version')).toBe(2);
    expect(store.count('readPrivateData')).toBe(0);

    other.privateData.add('hr', 'secret');
    await other.flush();
    await worker.syncFromStore();
    expect(store.count('readPrivateData')).toBe(1);
    expect(worker.privateData.sensitivity).toBe('secret');
    expect(rises.map((event) => [event.dataset, event.sensitivity])).toEqual([['hr', 'secret']]);
    expect(worker.hasPendingPrivateData).toBe(false);

    await worker.syncFromStore();
    expect(store.count('readPrivateData')).toBe(1);
    expect(store.count('mergePrivateData')).toBe(0);
  });

  it('fails when the store cannot be read', async () => {
    const store = new ControlledStore(files);
    const session = await Session.open({ sessionId: 'conv', store });
    store.down = true;
    expect(((await errorOf(session.syncFromStore())) as SessionStoreError).code).toBe(
      'store-unavailable',
    );
  });
});
