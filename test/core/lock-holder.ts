// Takes a file lock, says so on stdout, and stops itself (SIGSTOP) while
// holding it: a worker stalled by swap, a debugger or a VM pause.
// Usage: node --import tsx test/core/lock-holder.ts <lockPath>
import { withFileLock } from '../../src/core/file-lock.js';

const [lockPath] = process.argv.slice(2);
await withFileLock(lockPath!, { timeoutMs: 5_000, staleMs: 30_000 }, () => {
  process.stdout.write('held\n');
  process.kill(process.pid, 'SIGSTOP');
  return Promise.resolve();
});
