/**
 * Second copies of the library and of the MCP SDK's client, loaded as
 * modules of their own: code that no other contender runs. Code another
 * contender ran a moment before is found warm (in the processor's caches
 * and in the engine's state for it); a copy shows what the same code costs
 * without that. Each copy has copies of the SDK and of zod of its own: the
 * library is built on the SDK, and the raw client parses every message
 * with zod, so sharing either would warm one side's code with the other's
 * calls. The library's other imports, which the raw client has no
 * counterpart of, resolve to the project's `node_modules`. The copies are
 * made in a directory of their own under `.bench-scratch/` (ignored by
 * git), removed when the process exits.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Library } from './library.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SDK = path.join('node_modules', '@modelcontextprotocol', 'sdk');
const ZOD = path.join('node_modules', 'zod');

/** This process's copies: a directory of its own, inside the project, removed when it exits. */
let copies: string | undefined;
function copiesDirectory(): string {
  if (copies === undefined) {
    const scratch = path.join(root, '.bench-scratch');
    mkdirSync(scratch, { recursive: true });
    const made = mkdtempSync(path.join(scratch, 'copies-'));
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    copies = made;
  }
  return copies;
}

/**
 * Copies the SDK and zod into `dir`'s `node_modules`, where modules under
 * `dir` find them first, and checks that they do.
 * @throws Error when a module under `dir` would still load the project's.
 */
function copyClientModules(dir: string): void {
  for (const module of [SDK, ZOD]) copy(path.join(root, module), path.join(dir, module));
  const from = createRequire(path.join(dir, 'index.js'));
  for (const specifier of ['@modelcontextprotocol/sdk/client/index.js', 'zod/v4']) {
    const resolved = from.resolve(specifier);
    if (!resolved.startsWith(dir + path.sep)) {
      throw new Error(`${specifier} resolves to ${resolved}, not to the copy in ${dir}`);
    }
  }
}

/** The SDK's client classes, from a copy. */
export interface SdkCopy {
  readonly Client: typeof Client;
  readonly StdioClientTransport: typeof StdioClientTransport;
}

/** A copy of `from` at `to`, links followed (a linked install would otherwise stay one module). */
function copy(from: string, to: string, missing = 'run `npm ci` first'): void {
  if (!existsSync(from)) throw new Error(`${from} is missing: ${missing}`);
  cpSync(from, to, { recursive: true, dereference: true });
}

/** The library's `dist/`, copied, on copies of the SDK and zod of its own. */
export async function libraryCopy(): Promise<Library> {
  const dir = path.join(copiesDirectory(), 'library');
  copyClientModules(dir);
  const to = path.join(dir, 'dist');
  copy(path.join(root, 'dist'), to, 'run `npm run build` first');
  return (await import(pathToFileURL(path.join(to, 'src', 'index.js')).href)) as Library;
}

/** The MCP SDK's client, copied: the raw client's code as modules no other contender runs. */
export async function sdkCopy(): Promise<SdkCopy> {
  const dir = path.join(copiesDirectory(), 'raw');
  copyClientModules(dir);
  const esm = path.join(dir, SDK, 'dist', 'esm', 'client');
  const [client, stdio] = await Promise.all([
    import(pathToFileURL(path.join(esm, 'index.js')).href) as Promise<{ Client: typeof Client }>,
    import(pathToFileURL(path.join(esm, 'stdio.js')).href) as Promise<{
      StdioClientTransport: typeof StdioClientTransport;
    }>,
  ]);
  return { Client: client.Client, StdioClientTransport: stdio.StdioClientTransport };
}
