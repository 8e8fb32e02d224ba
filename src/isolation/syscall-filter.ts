/**
 * The sandbox's syscall filter, given to bubblewrap (`--seccomp`): a
 * classic BPF program that refuses the kernel keyring calls (`add_key`,
 * `keyctl`, `request_key`) with `ENOSYS`, as if the kernel had no
 * keyrings, and every call of an ABI it does not know.
 *
 * Keyrings are not a namespace: a sandboxed process keeps the session
 * keyring of the agent that started it, and root inside the sandbox maps
 * to the same user. A sandboxed server wrote a session's private data
 * there, and the same server, unsandboxed for another session, read it and
 * sent it on; from inside it could also read what the host keeps there
 * (Kerberos tickets, filesystem keys). Docker's and Flatpak's default
 * filters refuse the same calls.
 */
import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { endianness, tmpdir } from 'node:os';
import path from 'node:path';

/** One ABI a process of this architecture may call the kernel with. */
interface Abi {
  /** Its `AUDIT_ARCH_*` value, as the kernel gives it to the filter. */
  readonly audit: number;
  /** Its numbers of `add_key`, `request_key` and `keyctl`. */
  readonly keyring: readonly number[];
  /** Numbers from here on belong to another ABI of the same `audit` (x32), refused whole. */
  readonly otherAbiFrom?: number;
}

/**
 * The ABIs of each architecture Node runs on that the filter knows, by
 * `process.arch`: the native one, and the 32-bit one its kernel also
 * takes (`int 0x80` on x86-64), whose numbers differ.
 */
const ABIS: Readonly<Record<string, readonly Abi[]>> = {
  x64: [
    { audit: 0xc000003e, keyring: [248, 249, 250], otherAbiFrom: 0x40000000 },
    { audit: 0x40000003, keyring: [286, 287, 288] },
  ],
  arm64: [
    { audit: 0xc00000b7, keyring: [217, 218, 219] },
    { audit: 0x40000028, keyring: [309, 310, 311] },
  ],
  riscv64: [{ audit: 0xc00000f3, keyring: [217, 218, 219] }],
};

const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const ENOSYS = 38;
/** `BPF_LD | BPF_W | BPF_ABS`, `BPF_JMP | BPF_JEQ | BPF_K`, `BPF_JMP | BPF_JGE | BPF_K`, `BPF_RET | BPF_K`. */
const LOAD = 0x20;
const JUMP_EQUAL = 0x15;
const JUMP_AT_LEAST = 0x35;
const RETURN = 0x06;
/** Offsets in `struct seccomp_data`. */
const SYSCALL_NUMBER = 0;
const ARCHITECTURE = 4;

/** One `struct sock_filter`; a jump's `whenTrue` may name the refusal at the end. */
interface Instruction {
  readonly code: number;
  readonly whenTrue: number | 'refuse';
  readonly whenFalse: number;
  readonly k: number;
}

/**
 * The filter for `arch` (a `process.arch`), as the bytes bubblewrap reads.
 * @throws Error naming the architecture when the filter does not know it:
 *   the sandbox then cannot be made, and a call that needs it fails closed.
 */
export function sandboxSyscallFilter(arch: string = process.arch): Buffer {
  const abis = ABIS[arch];
  if (abis === undefined) {
    throw new Error(
      `the sandbox has no syscall filter for the ${arch} architecture (it knows ${Object.keys(ABIS).join(', ')})`,
    );
  }
  const program: Instruction[] = [{ code: LOAD, whenTrue: 0, whenFalse: 0, k: ARCHITECTURE }];
  for (const abi of abis) {
    const block: Instruction[] = [{ code: LOAD, whenTrue: 0, whenFalse: 0, k: SYSCALL_NUMBER }];
    if (abi.otherAbiFrom !== undefined) {
      block.push({ code: JUMP_AT_LEAST, whenTrue: 'refuse', whenFalse: 0, k: abi.otherAbiFrom });
    }
    for (const number of abi.keyring) {
      block.push({ code: JUMP_EQUAL, whenTrue: 'refuse', whenFalse: 0, k: number });
    }
    block.push({ code: RETURN, whenTrue: 0, whenFalse: 0, k: SECCOMP_RET_ALLOW });
    // Another ABI: past this one's block.
    program.push(
      { code: JUMP_EQUAL, whenTrue: 0, whenFalse: block.length, k: abi.audit },
      ...block,
    );
  }
  // An ABI the filter does not know gets nothing; the keyring calls are refused here too.
  program.push({ code: RETURN, whenTrue: 0, whenFalse: 0, k: SECCOMP_RET_ERRNO | ENOSYS });
  const refusal = program.length - 1;
  const bytes = Buffer.alloc(program.length * 8);
  const little = endianness() === 'LE';
  program.forEach((instruction, index) => {
    const at = index * 8;
    const whenTrue = instruction.whenTrue === 'refuse' ? refusal - index - 1 : instruction.whenTrue;
    if (little) bytes.writeUInt16LE(instruction.code, at);
    else bytes.writeUInt16BE(instruction.code, at);
    bytes.writeUInt8(whenTrue, at + 2);
    bytes.writeUInt8(instruction.whenFalse, at + 3);
    if (little) bytes.writeUInt32LE(instruction.k >>> 0, at + 4);
    else bytes.writeUInt32BE(instruction.k >>> 0, at + 4);
  });
  return bytes;
}

/**
 * The path of a file that holds {@link sandboxSyscallFilter}, checked at
 * every call: written when it is missing or holds anything else (a
 * cleaner of the temporary directory removed it, and every sandbox after
 * would fail to start). It lives in a directory of this user's own in the
 * temporary directory (mode 0700, so no other user can put another filter
 * in its place), shared by this user's processes; where that directory is
 * not this user's alone, in a new one of this process.
 * @throws Error when the architecture has no filter, or the file cannot be written.
 */
export function sandboxSyscallFilterFile(): string {
  const filter = sandboxSyscallFilter();
  const name = `filter-${createHash('sha256').update(filter).digest('hex').slice(0, 16)}.bpf`;
  // Found again when it is gone (a cleaner of the temporary directory took it).
  if (directory === undefined || !isOwnDirectory(directory)) directory = privateDirectory();
  const file = path.join(directory, name);
  if (!holds(file, filter)) {
    // Written aside and renamed: another process reading it sees it whole.
    const aside = `${file}.${process.pid}.tmp`;
    writeFileSync(aside, filter, { mode: 0o400 });
    renameSync(aside, file);
  }
  return file;
}

/** The directory of {@link sandboxSyscallFilterFile}, found or made once per process. */
let directory: string | undefined;

/** This user's own directory for the filter: shared when it is this user's alone, else a new one. */
function privateDirectory(): string {
  const uid = process.getuid?.() ?? 0;
  const shared = path.join(tmpdir(), `mcp-sections-seccomp-${uid}`);
  try {
    mkdirSync(shared, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (isOwnDirectory(shared)) return shared;
  // This process's own, removed as it ends.
  const own = mkdtempSync(path.join(tmpdir(), 'mcp-sections-seccomp-'));
  process.once('exit', () => rmSync(own, { recursive: true, force: true }));
  return own;
}

/** Whether `dir` is a directory (not a link) of this user's that no one else may write or read. */
function isOwnDirectory(dir: string): boolean {
  const stats = lstatSync(dir, { throwIfNoEntry: false });
  const uid = process.getuid?.() ?? 0;
  return (
    stats !== undefined && stats.isDirectory() && stats.uid === uid && (stats.mode & 0o077) === 0
  );
}

/** Whether `file` is a regular file (not a link) that holds exactly `content`. */
function holds(file: string, content: Buffer): boolean {
  try {
    return lstatSync(file).isFile() && readFileSync(file).equals(content);
  } catch {
    return false;
  }
}
