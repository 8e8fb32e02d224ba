// A worker that merges one 'confidential' dataset into a session and stops
// itself (SIGSTOP) after reading the session file, just before writing the
// new one: a stall between the read and the rename of a read-modify-write.
// Usage: node --import tsx test/runtime/store/stalling-writer.ts <directory> <sessionId> <staleLockMs>
import type * as FsPromises from 'node:fs/promises';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { FileSessionStore } from '../../../src/runtime/store/file-session-store.js';

const [directory, sessionId, staleLockMs] = process.argv.slice(2);
const store = new FileSessionStore({
  directory: directory!,
  staleLockMs: Number(staleLockMs),
  lockTimeoutMs: 10_000,
});
const sessionFile = path.basename(store.pathOf(sessionId!));

const fs = createRequire(import.meta.url)('node:fs/promises') as typeof FsPromises;
const open = fs.open;
let stalled = false;
fs.open = ((file: string, flags: string, mode: number) => {
  // writeFileAtomic opens its temporary file `.<name>.<pid>.<random>.tmp` with `wx`.
  if (!stalled && flags === 'wx' && path.basename(String(file)).startsWith(`.${sessionFile}.`)) {
    stalled = true;
    process.stdout.write('stalled\n');
    process.kill(process.pid, 'SIGSTOP');
  }
  return open(file, flags, mode);
}) as typeof fs.open;
syncBuiltinESMExports();

await store.mergePrivateData(sessionId!, {
  hasPrivateData: true,
  sensitivity: 'confidential',
  datasets: { stalled: 'confidential' },
});
await store.close();
