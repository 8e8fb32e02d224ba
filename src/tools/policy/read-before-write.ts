/**
 * `readBeforeWrite`: a file that exists may be overwritten or edited only
 * after it was read in this session; new files may be created freely. The
 * paths read (and written) are kept in a persistent session slice, so
 * they roll back with a failed call and come back with a resumed session.
 */
import { stat } from 'node:fs/promises';
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
   * (a failure other than "not found" counts as existing); give your own
   * for a server whose files are not this machine's
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
 * arguments is denied too (a misnamed argument must not let writes through).
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
        const resolved = path.resolve(root, target);
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

async function localFileExists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return !(code === 'ENOENT' || code === 'ENOTDIR');
  }
}
