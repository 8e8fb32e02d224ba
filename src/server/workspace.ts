/**
 * Translation between the paths an agent sees (`/workspace/...`) and host
 * paths, one directory per user and session:
 * `/workspace/docs/f.txt` ⟷ `<root>/<user>/<session>/docs/f.txt`.
 *
 * Two checks keep a path inside its session directory: a lexical one (no
 * `..` may climb out) and a physical one (the real path of the deepest
 * existing ancestor must stay inside, which catches symlinks, dangling ones
 * included: their targets are walked component by component). A symlink
 * swapped in between the check and a later use by path is not caught: a
 * sandbox or an extracting tool may share the directory, so code that must
 * not be redirected creates its file through a descriptor
 * (`exclusive-file.ts`, as `contextResult` does).
 */
import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { toPathSegment } from './path-segment.js';
import { checkIdentityId, currentScope, requireIdentity } from './request-context.js';
import { ServerContextError, ServerOptionsError, WorkspacePathError } from './errors.js';

/** The directory agents see as the root of their workspace. */
export const WORKSPACE_PREFIX = '/workspace';

/** Whose workspace to use. Taken from the request context when omitted. */
export interface WorkspaceScope {
  /** Absolute host directory holding every user's workspaces. */
  readonly root: string;
  readonly userId: string;
  readonly sessionId: string;
}

/**
 * Resolves the scope: the explicit one, else the caller's identity and the
 * server's `workspaceRoot` from the `defineTool` context.
 *
 * @throws {ServerContextError} without an explicit scope outside a tool call.
 * @throws {ServerOptionsError} for a relative root or an empty or oversized id.
 */
export function resolveWorkspaceScope(
  scope: WorkspaceScope | undefined,
  what: string,
): WorkspaceScope {
  if (scope !== undefined) {
    if (typeof scope.root !== 'string' || !path.isAbsolute(scope.root)) {
      throw new ServerOptionsError(
        'root',
        `workspace root must be an absolute path, got ${JSON.stringify(scope.root)}`,
      );
    }
    checkIdentityId('userId', scope.userId);
    checkIdentityId('sessionId', scope.sessionId);
    return scope;
  }
  const settings = currentScope()?.settings;
  if (settings === undefined) {
    throw new ServerContextError(
      `${what} needs a workspace: call it inside a tool registered with defineTool(), ` +
        `or pass { root, userId, sessionId }`,
    );
  }
  const { userId, sessionId } = requireIdentity(what);
  return { root: settings.workspaceRoot, userId, sessionId };
}

/** Host directory of one session's workspace (lexical, not created). */
export function sessionWorkspaceDir(scope: WorkspaceScope): string {
  return path.join(
    path.resolve(scope.root),
    toPathSegment(scope.userId),
    toPathSegment(scope.sessionId),
  );
}

/**
 * Maps an agent path to the host path inside the caller's session directory.
 * Accepts `/workspace/...` and paths relative to `/workspace`.
 *
 * @param workspacePath - e.g. `/workspace/docs/f.txt` or `docs/f.txt`.
 * @param scope - whose workspace; default: the current caller's.
 * @returns The host path `<root>/<user>/<session>/docs/f.txt` (it need not exist).
 * @throws {WorkspacePathError} `not-under-workspace` for an absolute path
 *   outside `/workspace` (such as `/workspacefoo/x`); `traversal` when `..`
 *   or a symlink leads out of the session directory; `invalid` for an empty
 *   path or one with a NUL byte.
 * @throws {ServerContextError} without `scope` outside a tool call.
 *
 * A later open by the returned path walks it again: a directory the agent
 * swaps for a symlink meanwhile redirects it. To read or write a file, use
 * `readWorkspaceFile` / `writeWorkspaceFile` (`workspace-file.ts`), which
 * open through descriptors.
 * @example
 * ```ts
 * const host = await workspaceToHostPath('/workspace/docs/f.txt');
 * // '<root>/<user>/<session>/docs/f.txt'
 * ```
 */
export async function workspaceToHostPath(
  workspacePath: string,
  scope?: WorkspaceScope,
): Promise<string> {
  const relative = relativeWorkspacePath(workspacePath);
  const resolved = resolveWorkspaceScope(scope, 'workspaceToHostPath()');
  const base = sessionWorkspaceDir(resolved);
  const host = relative === '' ? base : path.join(base, relative);

  const [realBase, realHost] = await Promise.all([physicalPath(base), physicalPath(host)]);
  if (!isInside(realHost, realBase)) {
    throw new WorkspacePathError(
      'traversal',
      `path ${JSON.stringify(workspacePath)} resolves outside the workspace through a symlink; ` +
        `use a path that stays under ${WORKSPACE_PREFIX}/`,
    );
  }
  return host;
}

/**
 * Maps a host path inside the caller's session directory back to the path
 * the agent sees. Lexical: the path need not exist.
 *
 * @returns e.g. `/workspace/results/result_0a1b2c3d.json`.
 * @throws {WorkspacePathError} `host-outside-workspace` when `hostPath` is
 *   not inside the session directory (a bug in tool code).
 * @throws {ServerContextError} without `scope` outside a tool call.
 */
export function hostToWorkspacePath(hostPath: string, scope?: WorkspaceScope): string {
  const resolved = resolveWorkspaceScope(scope, 'hostToWorkspacePath()');
  const base = sessionWorkspaceDir(resolved);
  const relative = path.relative(base, path.resolve(hostPath));
  if (relative === '') return WORKSPACE_PREFIX;
  if (relative === '..' || relative.startsWith('..' + path.sep) || path.isAbsolute(relative)) {
    throw new WorkspacePathError(
      'host-outside-workspace',
      `host path ${JSON.stringify(hostPath)} is not inside the session workspace ${JSON.stringify(base)}`,
    );
  }
  return `${WORKSPACE_PREFIX}/${relative.split(path.sep).join('/')}`;
}

/**
 * @internal Validates an agent path lexically and returns it relative to
 * `/workspace` ('' for the root), its segments joined by `/`.
 * @throws {WorkspacePathError} as {@link workspaceToHostPath}, before any file is looked at.
 */
export function relativeWorkspacePath(workspacePath: unknown): string {
  if (typeof workspacePath !== 'string' || workspacePath.length === 0) {
    throw new WorkspacePathError(
      'invalid',
      `path must be a non-empty string such as "${WORKSPACE_PREFIX}/notes.txt", got ${
        typeof workspacePath === 'string' ? 'an empty string' : typeof workspacePath
      }`,
    );
  }
  if (workspacePath.includes('\0')) {
    throw new WorkspacePathError(
      'invalid',
      `path ${JSON.stringify(workspacePath)} contains a NUL byte`,
    );
  }
  let rest: string;
  if (workspacePath.startsWith('/')) {
    // A plain prefix test would let `/workspacefoo/x` through.
    if (workspacePath !== WORKSPACE_PREFIX && !workspacePath.startsWith(WORKSPACE_PREFIX + '/')) {
      throw new WorkspacePathError(
        'not-under-workspace',
        `path ${JSON.stringify(workspacePath)} is not under ${WORKSPACE_PREFIX}; ` +
          `use "${WORKSPACE_PREFIX}/..." or a path relative to it`,
      );
    }
    rest = workspacePath.slice(WORKSPACE_PREFIX.length);
  } else {
    rest = workspacePath;
  }
  // `normalize` keeps leading `..` segments (unlike `resolve`, which would
  // clamp `/../../etc` to `/etc` and hide the escape).
  const normalized = path.posix.normalize(rest.replace(/^\/+/, '') || '.');
  if (normalized === '..' || normalized.startsWith('../')) {
    throw new WorkspacePathError(
      'traversal',
      `path ${JSON.stringify(workspacePath)} climbs out of ${WORKSPACE_PREFIX} with ".."; ` +
        `use a path that stays under ${WORKSPACE_PREFIX}/`,
    );
  }
  return normalized === '.' ? '' : normalized.replace(/\/+$/, '');
}

/** Symlinks followed by hand before giving up, like the kernel's ELOOP limit. */
const MAX_SYMLINK_HOPS = 40;

/**
 * Components walked in all, symlinks' included, before giving up: 40 links
 * each 4 KB of `d/../` made one check take over a second of `lstat`s (the
 * kernel's own walk is bounded by its buffers, not by hops alone).
 */
const MAX_WALKED_COMPONENTS = 4096;

/**
 * The real path of `target`, walked one component at a time as the kernel
 * walks it: each existing component is `lstat`ed, a symlink's target is
 * spliced in before the remaining components, and `..` is applied to the
 * real directory reached so far, never to the text. So a dangling link
 * `x -> h/../elsewhere` with `h -> /srv/out` resolves to `/srv/elsewhere`,
 * where a write through `x` would land (as text it would read `./elsewhere`). From the
 * first missing component on, the rest is appended as text (a write would
 * create it there; `..` after a missing directory cannot be walked by the
 * kernel at all, so taking it as text changes nothing that could be opened).
 */
async function physicalPath(target: string): Promise<string> {
  let real = path.parse(target).root;
  const missing: string[] = [];
  const pending = target.split(path.sep);
  let hops = 0;
  let walked = 0;
  for (let part = pending.shift(); part !== undefined; part = pending.shift()) {
    if (part === '' || part === '.') continue;
    if (++walked > MAX_WALKED_COMPONENTS) {
      throw new WorkspacePathError(
        'traversal',
        `the path leads through more than ${MAX_WALKED_COMPONENTS} components once its symbolic links are followed`,
      );
    }
    if (part === '..') {
      if (missing.length > 0) missing.pop();
      else real = path.dirname(real);
      continue;
    }
    if (missing.length > 0) {
      missing.push(part);
      continue;
    }
    const next = path.join(real, part);
    let isLink: boolean;
    try {
      isLink = (await lstat(next)).isSymbolicLink();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENAMETOOLONG') {
        throw new WorkspacePathError('invalid', 'a name in the path is longer than allowed', {
          cause: error,
        });
      }
      // ENOTDIR: `real` is a file; the path cannot exist, nothing can be written there either.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      missing.push(part);
      continue;
    }
    if (!isLink) {
      real = next;
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS) {
      throw new WorkspacePathError('traversal', 'too many levels of symbolic links');
    }
    let link: string;
    try {
      link = await readlink(next);
    } catch (error) {
      // Changed since the lstat (EINVAL: no longer a link; ENOENT: gone): look again.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EINVAL' && code !== 'ENOENT') throw error;
      pending.unshift(part);
      continue;
    }
    pending.unshift(...link.split(path.sep));
    if (path.isAbsolute(link)) real = path.parse(link).root;
  }
  return missing.length === 0 ? real : path.join(real, ...missing);
}

/** True when `candidate` is `base` or a path below it (compare real paths with real paths). */
export function isInside(candidate: string, base: string): boolean {
  return (
    candidate === base || candidate.startsWith(base.endsWith(path.sep) ? base : base + path.sep)
  );
}
