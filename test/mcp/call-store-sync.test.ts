import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordEscalation, syncWithStore } from '../../src/mcp/call-store-sync.js';
import { Session } from '../../src/runtime/session.js';
import { FileSessionStore } from '../../src/runtime/store/file-session-store.js';
import { privateDataState } from '../../src/runtime/store/session-store.js';
import { ControlledStore } from '../fixtures/sessions/controlled-store.js';

let directory: string;
let files: FileSessionStore;

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'mcp-sections-call-sync-'));
  files = new FileSessionStore({ directory });
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const signal = new AbortController().signal;

describe('syncWithStore', () => {
  it("brings in another worker's escalation before the call", async () => {
    const session = await Session.open({ sessionId: 'conv', store: files });
    await files.mergePrivateData('conv', privateDataState('secret', { hr: 'secret' }));
    expect(await syncWithStore(session, 'files', 'read', signal)).toBeUndefined();
    expect(session.privateData.sensitivity).toBe('secret');
  });

  it('refuses the call, naming the tool and the server, when the store cannot be read', async () => {
    const store = new ControlledStore(files);
    const session = await Session.open({ sessionId: 'conv', store });
    store.down = true;
    const refused = await syncWithStore(session, 'files', 'read', signal);
    expect(refused?.success).toBe(false);
    expect(refused?.message).toMatch(
      /^tool "read" of server "files" was not called: the session store could not be read/,
    );
  });
});

describe('syncWithStore, with an escalation still to record', () => {
  it('refuses the call when the read works but the escalation cannot be written', async () => {
    class WriteFails extends FileSessionStore {
      override mergePrivateData(): ReturnType<FileSessionStore['mergePrivateData']> {
        return Promise.reject(new Error('disk full'));
      }
    }
    const session = await Session.open({
      sessionId: 'conv',
      store: new WriteFails({ directory }),
    });
    session.privateData.add('crm', 'secret');
    const refused = await syncWithStore(session, 'files', 'read', signal);
    expect(refused?.message).toMatch(
      /^tool "read" of server "files" was not called, but the session store could not record the escalation to "secret": .*disk full/,
    );
    expect(session.hasPendingPrivateData).toBe(true);
  });
});

describe('recordEscalation', () => {
  it('writes a pending escalation and has nothing to report', async () => {
    const session = await Session.open({ sessionId: 'conv', store: files });
    session.privateData.add('crm', 'confidential');
    expect(session.hasPendingPrivateData).toBe(true);
    expect(await recordEscalation(session, 'files', 'read', signal)).toBeUndefined();
    expect(session.hasPendingPrivateData).toBe(false);
    expect((await files.readPrivateData('conv')).privateData.sensitivity).toBe('confidential');
  });

  it('reports a write that failed, keeps the session raised and the escalation pending', async () => {
    const store = new ControlledStore(files);
    const session = await Session.open({ sessionId: 'conv', store });
    session.privateData.add('crm', 'secret');
    store.down = true;
    const failed = await recordEscalation(session, 'files', 'read', signal);
    expect(failed?.message).toMatch(
      /^tool "read" of server "files" ran, but the session store could not record the escalation to "secret"/,
    );
    expect(session.privateData.sensitivity).toBe('secret');
    expect(session.hasPendingPrivateData).toBe(true);
  });
});
