import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  hostToWorkspacePath,
  ServerContextError,
  workspaceToHostPath,
  WorkspacePathError,
  type WorkspaceScope,
} from '../../src/server/index.js';
import { toPathSegment } from '../../src/server/path-segment.js';
import { makeTempDirs, type TempDirs } from './helpers.js';

let dirs: TempDirs;
let alice: WorkspaceScope;
let sessionDir: string;
beforeEach(async () => {
  dirs = await makeTempDirs();
  alice = { root: dirs.workspaceRoot, userId: 'alice', sessionId: 's1' };
  sessionDir = path.join(dirs.workspaceRoot, 'alice', 's1');
});
afterEach(async () => {
  await dirs.remove();
});

async function refusal(workspacePath: string, scope = alice): Promise<WorkspacePathError> {
  const error = await workspaceToHostPath(workspacePath, scope).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WorkspacePathError);
  return error as WorkspacePathError;
}

describe('workspaceToHostPath', () => {
  it('maps relative and /workspace paths into <root>/<user>/<session>', async () => {
    const expected = path.join(sessionDir, 'docs', 'f.txt');
    expect(await workspaceToHostPath('docs/f.txt', alice)).toBe(expected);
    expect(await workspaceToHostPath('/workspace/docs/f.txt', alice)).toBe(expected);
    expect(await workspaceToHostPath('/workspace', alice)).toBe(sessionDir);
    expect(await workspaceToHostPath('/workspace/', alice)).toBe(sessionDir);
    expect(await workspaceToHostPath('/workspace/a/../docs/./f.txt', alice)).toBe(expected);
  });

  it('keeps users and sessions in separate directories', async () => {
    const other = await workspaceToHostPath('docs/f.txt', { ...alice, sessionId: 's2' });
    const bob = await workspaceToHostPath('docs/f.txt', { ...alice, userId: 'bob' });
    expect(other).toBe(path.join(dirs.workspaceRoot, 'alice', 's2', 'docs', 'f.txt'));
    expect(bob).toBe(path.join(dirs.workspaceRoot, 'bob', 's1', 'docs', 'f.txt'));
  });

  it('refuses /workspacefoo/x as not under /workspace', async () => {
    const error = await refusal('/workspacefoo/x');
    expect(error.reason).toBe('not-under-workspace');
    expect(error.message).toContain('"/workspacefoo/x" is not under /workspace');
    expect((await refusal('/etc/passwd')).reason).toBe('not-under-workspace');
  });

  it('refuses .. traversal', async () => {
    for (const bad of ['/workspace/../../etc/passwd', '../x', 'docs/../../x', '/workspace/..']) {
      const error = await refusal(bad);
      expect(error.reason).toBe('traversal');
      expect(error.message).toContain(JSON.stringify(bad));
    }
  });

  it('refuses a symlink that points outside, without naming the host path', async () => {
    await mkdir(sessionDir, { recursive: true });
    const outside = path.join(dirs.base, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret.txt'), 'nope');
    await symlink(outside, path.join(sessionDir, 'escape'));

    const error = await refusal('/workspace/escape/secret.txt');
    expect(error.reason).toBe('traversal');
    expect(error.message).not.toContain(dirs.base);
    // Also for a file that does not exist yet (a write through the link).
    expect((await refusal('/workspace/escape/new/file.txt')).reason).toBe('traversal');
  });

  it("refuses a symlink into another user's workspace", async () => {
    const bobDir = path.join(dirs.workspaceRoot, 'bob', 's1');
    await mkdir(bobDir, { recursive: true });
    await mkdir(sessionDir, { recursive: true });
    await symlink(bobDir, path.join(sessionDir, 'bob'));
    expect((await refusal('bob/notes.txt')).reason).toBe('traversal');
  });

  it('refuses a dangling symlink whose target lies outside (a write would create it there)', async () => {
    await mkdir(sessionDir, { recursive: true });
    await symlink(path.join(dirs.base, 'planted.txt'), path.join(sessionDir, 'dangling'));
    expect((await refusal('dangling')).reason).toBe('traversal');
  });

  it('refuses a dangling symlink whose target climbs with .. out of a symlinked directory', async () => {
    // x -> h/../server-home/.bashrc, h -> <base>/outside: the kernel follows h
    // first, so `..` lands in <base>, not back in the session directory.
    const outside = path.join(dirs.base, 'outside');
    await mkdir(outside);
    await mkdir(sessionDir, { recursive: true });
    await symlink(outside, path.join(sessionDir, 'h'));
    await symlink('h/../server-home/.bashrc', path.join(sessionDir, 'x'));
    const error = await refusal('/workspace/x');
    expect(error.reason).toBe('traversal');
    expect(error.message).not.toContain(dirs.base);
  });

  it("refuses a dangling symlink that climbs with .. into another user's workspace", async () => {
    const bobDir = path.join(dirs.workspaceRoot, 'bob', 's1');
    await mkdir(path.join(bobDir, 'sub2'), { recursive: true });
    await mkdir(path.join(sessionDir, 'a'), { recursive: true });
    await symlink(path.join(bobDir, 'sub2'), path.join(sessionDir, 'a', 'u'));
    await symlink('u/../planted.txt', path.join(sessionDir, 'a', 'e'));
    expect((await refusal('a/e')).reason).toBe('traversal');
    // Through a chain of links, and with the climbing link in the middle of the path.
    await symlink('e', path.join(sessionDir, 'a', 'e2'));
    expect((await refusal('a/e2')).reason).toBe('traversal');
    await symlink('u/..', path.join(sessionDir, 'a', 'up'));
    expect((await refusal('a/up/planted.txt')).reason).toBe('traversal');
  });

  it('accepts a dangling symlink whose .. stays inside the session', async () => {
    await mkdir(path.join(sessionDir, 'real', 'deep'), { recursive: true });
    await symlink('real/deep', path.join(sessionDir, 'in'));
    await symlink('in/../new.txt', path.join(sessionDir, 'x'));
    expect(await workspaceToHostPath('x', alice)).toBe(path.join(sessionDir, 'x'));
  });

  it('refuses a symlink loop', async () => {
    await mkdir(sessionDir, { recursive: true });
    await symlink('loop2', path.join(sessionDir, 'loop1'));
    await symlink('loop1', path.join(sessionDir, 'loop2'));
    expect((await refusal('loop1/f.txt')).reason).toBe('traversal');
  });

  it('accepts a symlink that stays inside the session', async () => {
    await mkdir(path.join(sessionDir, 'real'), { recursive: true });
    await symlink(path.join(sessionDir, 'real'), path.join(sessionDir, 'alias'));
    expect(await workspaceToHostPath('alias/f.txt', alice)).toBe(
      path.join(sessionDir, 'alias', 'f.txt'),
    );
  });

  it('refuses empty paths, NUL bytes and names longer than the file system allows as invalid', async () => {
    expect((await refusal('')).reason).toBe('invalid');
    expect((await refusal('a\0b')).reason).toBe('invalid');
    await mkdir(sessionDir, { recursive: true });
    expect((await refusal(`${'n'.repeat(300)}/f.txt`)).reason).toBe('invalid');
  });

  it('bounds the components it walks through a chain of padded symlinks', async () => {
    await mkdir(path.join(sessionDir, 'd'), { recursive: true });
    await writeFile(path.join(sessionDir, 'end'), 'target');
    // Each link's target climbs in and out of d 800 times: 40 links hold 64,000 components.
    const pad = 'd/../'.repeat(800);
    for (let i = 0; i < 39; i++) await symlink(`${pad}l${i + 1}`, path.join(sessionDir, `l${i}`));
    await symlink(`${pad}end`, path.join(sessionDir, 'l39'));
    const error = await refusal('l0');
    expect(error.reason).toBe('traversal');
    expect(error.message).toMatch(/more than 4096 components/);
    expect(await workspaceToHostPath('l39', alice)).toBe(path.join(sessionDir, 'l39'));
  });

  it('needs a scope outside a tool call, and a valid one', async () => {
    await expect(workspaceToHostPath('docs/f.txt')).rejects.toBeInstanceOf(ServerContextError);
    await expect(workspaceToHostPath('docs/f.txt', { ...alice, userId: '' })).rejects.toThrow(
      'userId must be a non-empty string, got an empty string',
    );
    await expect(workspaceToHostPath('docs/f.txt', { ...alice, root: 'relative' })).rejects.toThrow(
      'workspace root must be an absolute path, got "relative"',
    );
  });

  it('never maps any path outside the session directory (property)', async () => {
    const segment = fc.constantFrom('..', '.', 'a', 'b', '', 'workspace', '...');
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { maxLength: 6 }),
        fc.boolean(),
        async (parts, absolute) => {
          const candidate = (absolute ? '/workspace/' : '') + parts.join('/');
          try {
            const host = await workspaceToHostPath(candidate, alice);
            expect(host === sessionDir || host.startsWith(sessionDir + path.sep)).toBe(true);
          } catch (error) {
            expect(error).toBeInstanceOf(WorkspacePathError);
          }
        },
      ),
    );
  });
});

describe('hostToWorkspacePath', () => {
  it('maps host paths of the session back to /workspace', () => {
    expect(hostToWorkspacePath(path.join(sessionDir, 'docs', 'f.txt'), alice)).toBe(
      '/workspace/docs/f.txt',
    );
    expect(hostToWorkspacePath(sessionDir, alice)).toBe('/workspace');
  });

  it('round-trips with workspaceToHostPath', async () => {
    const host = await workspaceToHostPath('/workspace/results/r.json', alice);
    expect(hostToWorkspacePath(host, alice)).toBe('/workspace/results/r.json');
  });

  it('refuses host paths outside the session', () => {
    const error = (() => {
      try {
        return hostToWorkspacePath(path.join(dirs.workspaceRoot, 'alice', 's2', 'x'), alice);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(WorkspacePathError);
    expect((error as WorkspacePathError).reason).toBe('host-outside-workspace');
    expect((error as WorkspacePathError).agentFacing).toBe(false);
  });
});

describe('path-safe ids', () => {
  it('escapes separators, dots and percent signs', () => {
    expect(toPathSegment('alice')).toBe('alice');
    expect(toPathSegment('..')).toBe('%2E%2E');
    expect(toPathSegment('a/b')).toBe('a%2Fb');
    expect(toPathSegment('a%2Fb')).toBe('a%252Fb');
    expect(toPathSegment('.hidden')).not.toMatch(/^\./);
  });

  it('shortens long ids with a hash, keeping them apart', () => {
    const a = toPathSegment('é'.repeat(150));
    const b = toPathSegment('é'.repeat(149) + 'e');
    expect(a).toHaveLength(200);
    expect(a).toMatch(/~[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
  });

  it('maps distinct ids to distinct single segments (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 60 }),
        fc.string({ unit: 'binary', maxLength: 60 }),
        (a, b) => {
          const sa = toPathSegment(a);
          expect(sa).not.toContain('/');
          expect(sa).not.toMatch(/^\.\.?$/);
          expect(sa.length).toBeLessThanOrEqual(200);
          if (a !== b) expect(sa).not.toBe(toPathSegment(b));
        },
      ),
    );
  });
});
