/**
 * `readBeforeWrite`: a file that exists may be overwritten or edited only
 * after it was read in this session; new files may be created freely. The
 * paths read (and written) are kept in a persistent session slice, so
 * they roll back with a failed call and come back with a resumed session.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { PromptValidationError } from '../../core/errors.js';
import { countedEntriesSlice, entryCount, recordEntries } from '../../runtime/counted-entries.js';
import type { Tool } from '../tool.js';
import type { ToolContext } from '../tool-context.js';
import { PolicyDecision } from './policy-decision.js';
import { checkPolicyName, type ToolPolicy } from './tool-policy.js';
import { toolIsNamed, toolNameSet } from './tool-selector.js';

/**
 * What {@link readBeforeWrite} covers by default: the tools of the reference
 * file-system server (`@modelcontextprotocol/server-filesystem`) by their
 * own names, and the arguments that hold a path (a string) or paths (an
 * array of strings).
 */
export const DEFAULT_READ_BEFORE_WRITE = Object.freeze({
  readTools: Object.freeze(['read_file', 'read_text_file', 'read_multiple_files']),
  writeTools: Object.freeze(['write_file', 'edit_file']),
  pathArguments: Object.freeze(['path', 'paths', 'file_path']),
});

/** Options of {@link readBeforeWrite}. */
export interface ReadBeforeWriteOptions {
  /** Tools that read files: offered names or MCP tools' own names. @default DEFAULT_READ_BEFORE_WRITE.readTools */
  readonly readTools?: readonly string[];
  /** Tools that overwrite or edit files. @default DEFAULT_READ_BEFORE_WRITE.writeTools */
  readonly writeTools?: readonly string[];
  /** Arguments that name the file(s). @default DEFAULT_READ_BEFORE_WRITE.pathArguments */
  readonly pathArguments?: readonly string[];
  /** What relative paths are relative to. @default process.cwd() when the policy is made */
  readonly root?: string;
  /**
   * Whether a file is there now. Only an existing file needs reading first.
   * A throw denies the write. @default a `stat` of the local file system
   * that also finds an entry whose name is Unicode-equivalent (the same
   * NFKC form) to a part of the path missing as spelled, as a server may
   * write to it (a failure other than "not found" counts as existing); give
   * your own for a server whose files are not this machine's, answering for
   * the equivalent names that server maps a path to
   */
  readonly exists?: (path: string, context: ToolContext) => boolean | Promise<boolean>;
  /** Also names the session slice that keeps the paths (`mcp-sections.policy.<name>`). @default 'read-before-write' */
  readonly name?: string;
}

/**
 * A policy, after weakincentives' ReadBeforeWritePolicy, mapped to MCP
 * file-system tools: a write to a file that exists and was not read (or
 * written) by an earlier successful call of this session is denied, and the
 * model is told to read it first. A write call with none of the path
 * arguments is denied too (a misnamed argument must not let writes through),
 * and so is a write path not in Unicode normal form (NFC and NFKC) or
 * starting with `~`: a server may take it for an existing file whose name
 * is spelled another way, or for one in its home directory.
 *
 * @throws PromptValidationError for a bad option.
 * @example
 * new McpIntegrationSection({ servers: [fsServer], session, policies: [readBeforeWrite()] })
 */
export function readBeforeWrite(options: ReadBeforeWriteOptions = {}): ToolPolicy {
  const name = options.name ?? 'read-before-write';
  checkPolicyName(name, 'readBeforeWrite');
  const owner = `readBeforeWrite "${name}"`;
  const readTools = toolNameSet(
    options.readTools ?? DEFAULT_READ_BEFORE_WRITE.readTools,
    `${owner}: readTools`,
  );
  const writeTools = toolNameSet(
    options.writeTools ?? DEFAULT_READ_BEFORE_WRITE.writeTools,
    `${owner}: writeTools`,
  );
  const pathArguments = [
    ...toolNameSet(
      options.pathArguments ?? DEFAULT_READ_BEFORE_WRITE.pathArguments,
      `${owner}: pathArguments`,
      'argument name',
    ),
  ];
  if (options.root !== undefined && (typeof options.root !== 'string' || options.root === '')) {
    throw new PromptValidationError(
      `${owner}: root must be a directory path, received ${JSON.stringify(options.root)}`,
    );
  }
  const root = path.resolve(options.root ?? process.cwd());
  const exists = options.exists ?? localFileExists;
  if (typeof exists !== 'function') {
    throw new PromptValidationError(
      `${owner}: exists must be a function of the path, received ${typeof exists}`,
    );
  }
  const sliceName = `mcp-sections.policy.${name}`;
  const readHint = [...readTools].join(' or ');

  return Object.freeze({
    name,
    async check(tool: Tool, params: unknown, context: ToolContext): Promise<PolicyDecision> {
      if (!toolIsNamed(tool, writeTools)) return PolicyDecision.allow();
      const targets = pathsOf(params, pathArguments);
      if (targets.length === 0) {
        return PolicyDecision.deny(
          `tool "${tool.name}" writes files, but the call has none of the path arguments ${pathArguments.join(', ')}`,
        );
      }
      const known = countedEntriesSlice(context.session, sliceName).get();
      for (const target of targets) {
        // Servers expand `~` to their user's home (server-filesystem does): not a name under root.
        if (target === '~' || target.startsWith('~/') || target.startsWith(`~${path.sep}`)) {
          return PolicyDecision.deny(
            `path ${JSON.stringify(target)} starts with "~", which the server may read as its home directory; give the path without "~"`,
          );
        }
        const resolved = path.resolve(root, target);
        const normalSpelling = normalSpellingOf(root, target, resolved);
        if (normalSpelling !== undefined) {
          return PolicyDecision.deny(
            `path ${JSON.stringify(target)} is not in Unicode normal form (NFC and NFKC), so it may name an existing file whose name is spelled differently; use ${JSON.stringify(normalSpelling)}`,
          );
        }
        if (entryCount(known, entryName(tool, resolved)) > 0) continue;
        if (!(await exists(resolved, context))) continue;
        return PolicyDecision.deny(
          `file ${JSON.stringify(target)} exists and has not been read in this session; read it first (${readHint})`,
        );
      }
      return PolicyDecision.allow();
    },
    onResult(tool: Tool, params: unknown, _result: unknown, context: ToolContext): void {
      if (!toolIsNamed(tool, readTools) && !toolIsNamed(tool, writeTools)) return;
      const resolved = pathsOf(params, pathArguments).map((target) =>
        entryName(tool, path.resolve(root, target)),
      );
      if (resolved.length === 0) return;
      recordEntries(countedEntriesSlice(context.session, sliceName), resolved);
    },
  });
}

/**
 * For a path not in Unicode normal form (below `root` when inside it, else
 * all of it): the spelling the model should use instead; else `undefined`.
 * A server may take a name that is not normal for an existing file whose
 * name is its NFC form (server-filesystem does, for a path that does not
 * exist as spelled), or its NFKC form (a file system that folds
 * compatibility characters); a literal `stat` would not see that file, and
 * a read of that file under its own name would not count for this spelling.
 * `root` itself is the application's choice and is not checked.
 */
function normalSpellingOf(root: string, target: string, resolved: string): string | undefined {
  const relative = path.relative(root, resolved);
  const inside =
    relative !== '' &&
    relative !== '..' &&
    !relative.startsWith(`..${path.sep}`) &&
    !path.isAbsolute(relative);
  const checked = inside ? relative : resolved;
  // An NFKC-normal string is NFC-normal too; both are named to say what is meant.
  if (checked.normalize('NFC') === checked && checked.normalize('NFKC') === checked) {
    return undefined;
  }
  const normal = checked.normalize('NFKC');
  if (!inside) return normal;
  return path.isAbsolute(target) ? path.join(root, normal) : normal;
}

/**
 * The entry of a file as `tool` sees it: an MCP tool's files are its
 * server's, so a read on one server never unlocks a write on another (a
 * server that merely lists a `read_file` cannot vouch for someone else's
 * files).
 */
function entryName(tool: Tool, file: string): string {
  return tool.origin.kind === 'mcp' ? `${tool.origin.server}:${file}` : file;
}

/** The path strings in `params` under any of `names`, in order. */
function pathsOf(params: unknown, names: readonly string[]): string[] {
  if (typeof params !== 'object' || params === null) return [];
  const found: string[] = [];
  for (const key of names) {
    if (!Object.hasOwn(params, key)) continue;
    const value: unknown = (params as Record<string, unknown>)[key];
    if (typeof value === 'string' && value !== '') found.push(value);
    else if (Array.isArray(value)) {
      for (const item of value) if (typeof item === 'string' && item !== '') found.push(item);
    }
  }
  return found;
}

/** Beyond this many Unicode-equivalent spellings of one path, the path counts as existing. */
const MAX_EQUIVALENT_PATHS = 32;

/**
 * The default `exists`: the path as spelled, or any Unicode-equivalent
 * spelling of it, is on this machine. A server may write a missing path to
 * an existing entry whose name is equivalent (server-filesystem does, for
 * NFC; a file system may for NFKC), so a path is new only when no such entry
 * exists either. Any failure but "not found" counts as existing.
 */
async function localFileExists(file: string): Promise<boolean> {
  const found = await statOf(file);
  if (found !== 'missing') return true;
  return equivalentEntryExists(file);
}

async function statOf(file: string): Promise<'found' | 'missing' | 'failed'> {
  try {
    await stat(file);
    return 'found';
  } catch (error) {
    return isNotFound(error) ? 'missing' : 'failed';
  }
}

/**
 * Whether `file`, missing as spelled, exists under an equivalent spelling:
 * from its deepest ancestor that exists as spelled, each further part of
 * the path is looked for among the entries of the directories reached so
 * far, as spelled or with the same NFKC form (which equal NFC forms share).
 * Names compare case-sensitively, as the file system does.
 */
async function equivalentEntryExists(file: string): Promise<boolean> {
  const missing: string[] = [];
  let base = file;
  for (;;) {
    const parent = path.dirname(base);
    if (parent === base) return false;
    missing.unshift(path.basename(base));
    base = parent;
    const found = await statOf(base);
    if (found === 'failed') return true;
    if (found === 'found') break;
  }
  let reached = [base];
  for (const part of missing) {
    const key = part.normalize('NFKC');
    const next: string[] = [];
    for (const directory of reached) {
      let entries: string[];
      try {
        entries = await readdir(directory);
      } catch (error) {
        if (isNotFound(error)) continue;
        return true;
      }
      for (const entry of entries) {
        if (entry === part || entry.normalize('NFKC') === key)
          next.push(path.join(directory, entry));
      }
    }
    if (next.length === 0) return false;
    if (next.length > MAX_EQUIVALENT_PATHS) return true;
    reached = next;
  }
  return true;
}

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
