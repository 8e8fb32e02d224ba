/**
 * The sandbox's syscall filter, read back and run by a small classic-BPF
 * interpreter: what it answers each call of each ABI. (That the kernel
 * applies it is in test/integration/isolation-bubblewrap.test.ts.)
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  sandboxSyscallFilter,
  sandboxSyscallFilterFile,
} from '../../src/isolation/syscall-filter.js';

const ALLOW = 0x7fff0000;
const ENOSYS = 0x00050000 | 38;

/** Runs `filter` (little-endian `struct sock_filter`s) on a call of `arch`'s ABI numbered `number`. */
function verdict(filter: Buffer, arch: number, number: number): number {
  const data = [number, arch];
  let accumulator = 0;
  for (let pc = 0, steps = 0; steps < 1_000; steps += 1) {
    const at = pc * 8;
    if (at >= filter.length) throw new Error('the filter ran off its end');
    const code = filter.readUInt16LE(at);
    const whenTrue = filter.readUInt8(at + 2);
    const whenFalse = filter.readUInt8(at + 3);
    const k = filter.readUInt32LE(at + 4);
    switch (code) {
      case 0x20: // load a word of seccomp_data
        accumulator = data[k / 4]!;
        pc += 1;
        break;
      case 0x15: // jump if equal
        pc += 1 + (accumulator === k ? whenTrue : whenFalse);
        break;
      case 0x35: // jump if at least
        pc += 1 + (accumulator >>> 0 >= k ? whenTrue : whenFalse);
        break;
      case 0x06: // return
        return k;
      default:
        throw new Error(`unexpected instruction ${code.toString(16)}`);
    }
  }
  throw new Error('the filter did not return');
}

/**
 * A temporary directory of this file's own: the tests below remove the
 * filter and its directory, which sandboxes that other test files start
 * meanwhile read from the shared one.
 */
const scratch = mkdtempSync(path.join(tmpdir(), 'syscall-filter-test-'));
const tmpdirBefore = process.env['TMPDIR'];
beforeAll(() => {
  process.env['TMPDIR'] = scratch;
});
afterAll(() => {
  if (tmpdirBefore === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = tmpdirBefore;
  rmSync(scratch, { recursive: true, force: true });
});

const X86_64 = 0xc000003e;
const I386 = 0x40000003;
const AARCH64 = 0xc00000b7;
const ARM = 0x40000028;

describe('sandboxSyscallFilter', () => {
  it('refuses the keyring calls of x86-64 and of its 32-bit ABI, and allows the rest', () => {
    const filter = sandboxSyscallFilter('x64');
    // add_key, request_key, keyctl
    for (const number of [248, 249, 250]) expect(verdict(filter, X86_64, number)).toBe(ENOSYS);
    for (const number of [286, 287, 288]) expect(verdict(filter, I386, number)).toBe(ENOSYS);
    // read, write, openat, clone3; and the 32-bit ABI's numbers for x86-64's keyring ones
    for (const number of [0, 1, 257, 435, 248, 250]) {
      expect(verdict(filter, number >= 248 && number <= 250 ? I386 : X86_64, number)).toBe(ALLOW);
    }
    // The x32 ABI (numbers from 2^30) is refused whole: its keyring calls share x86-64's audit value.
    expect(verdict(filter, X86_64, 0x40000000 + 248)).toBe(ENOSYS);
    expect(verdict(filter, X86_64, 0x40000000)).toBe(ENOSYS);
  });

  it('refuses the keyring calls of arm64 and of 32-bit arm', () => {
    const filter = sandboxSyscallFilter('arm64');
    for (const number of [217, 218, 219]) expect(verdict(filter, AARCH64, number)).toBe(ENOSYS);
    for (const number of [309, 310, 311]) expect(verdict(filter, ARM, number)).toBe(ENOSYS);
    for (const number of [63, 64, 56, 220]) expect(verdict(filter, AARCH64, number)).toBe(ALLOW);
  });

  it('refuses every call of an ABI it does not know', () => {
    const filter = sandboxSyscallFilter('x64');
    expect(verdict(filter, AARCH64, 63)).toBe(ENOSYS);
    expect(verdict(filter, 0, 0)).toBe(ENOSYS);
  });

  it('names an architecture it has no filter for, so no sandbox is made without one', () => {
    expect(() => sandboxSyscallFilter('mips')).toThrow(
      /no syscall filter for the mips architecture \(it knows x64, arm64, riscv64\)/,
    );
  });

  it("writes this host's filter where only this user can, readable by this user only", () => {
    const file = sandboxSyscallFilterFile();
    expect(file.startsWith(`${scratch}${path.sep}`)).toBe(true);
    expect(sandboxSyscallFilterFile()).toBe(file);
    expect(readFileSync(file)).toEqual(sandboxSyscallFilter());
    expect(statSync(file).mode & 0o777).toBe(0o400);
    expect(statSync(path.dirname(file)).mode & 0o077).toBe(0);
  });

  it('writes it again when it is gone or holds anything else, so sandboxes go on starting', () => {
    const file = sandboxSyscallFilterFile();
    rmSync(file);
    expect(sandboxSyscallFilterFile()).toBe(file);
    expect(readFileSync(file)).toEqual(sandboxSyscallFilter());
    chmodSync(file, 0o600);
    writeFileSync(file, Buffer.alloc(8));
    expect(sandboxSyscallFilterFile()).toBe(file);
    expect(readFileSync(file)).toEqual(sandboxSyscallFilter());
    // Its directory too, as a cleaner of the temporary directory takes it.
    rmSync(path.dirname(file), { recursive: true });
    expect(sandboxSyscallFilterFile()).toBe(file);
    expect(readFileSync(file)).toEqual(sandboxSyscallFilter());
  });

  it("writes it into a directory of its own when the shared one is not this user's alone", () => {
    const shared = path.dirname(sandboxSyscallFilterFile());
    chmodSync(shared, 0o777); // another user could put another filter there
    try {
      const file = sandboxSyscallFilterFile();
      expect(path.dirname(file)).not.toBe(shared);
      expect(statSync(path.dirname(file)).mode & 0o077).toBe(0);
      expect(readFileSync(file)).toEqual(sandboxSyscallFilter());
    } finally {
      chmodSync(shared, 0o700);
    }
  });
});
