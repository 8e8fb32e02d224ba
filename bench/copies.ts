/**
 * Second copies of the library and of the MCP SDK, loaded as modules of
 * their own: code that no other contender runs. A contender's code that
 * another contender in the same round also runs (the raw client and its
 * control share the SDK's modules) is found warm in the processor's caches
 * and the JIT's state; a copy shows what the same code costs without that.
 * The copies are made in `.bench-scratch/copies/` (ignored by git), each
 * with copies of the SDK and of zod of its own: the library is built on
 * the SDK, so a raw client sharing its SDK with the library would find the
 * SDK's code warm where the library finds its own cold, and the raw client
 * parses every message with zod, which the other raw clients keep warm.
 * The library's other imports, which the raw client has no counterpart
 * of, resolve to the project's `node_modules`.
 */
import { cpSync, existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Library } from './library.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const copies = path.join(root, '.bench-scratch', 'copies');
const SDK = path.join('node_modules', '@modelcontextprotocol', 'sdk');
const ZOD = path.join('node_modules', 'zod');

/** Copies the SDK and zod into `dir`'s `node_modules`, where modules under `dir` find them first. */
function copyClientModules(dir: string): void {
  for (const module of [SDK, ZOD]) copyOnce(path.join(root, module), path.join(dir, module));
}

/** The SDK's client classes, from a copy. */
export interface SdkCopy {
  readonly Client: typeof Client;
  readonly StdioClientTransport: typeof StdioClientTransport;
}

/** A fresh copy of `from` at `to`, made once per process. */
const made = new Set<string>();
function copyOnce(from: string, to: string): void {
  if (made.has(to)) return;
  if (!existsSync(from)) throw new Error(`${from} is missing: run \`npm run build\` first`);
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
  made.add(to);
}

/** The library's `dist/`, copied, on copies of the SDK and zod of its own. */
export async function libraryCopy(): Promise<Library> {
  copyClientModules(path.join(copies, 'library'));
  const to = path.join(copies, 'library', 'dist');
  copyOnce(path.join(root, 'dist'), to);
  return (await import(pathToFileURL(path.join(to, 'src', 'index.js')).href)) as Library;
}

/** The MCP SDK's client, copied: the raw client's code as modules no other contender runs. */
export async function sdkCopy(): Promise<SdkCopy> {
  copyClientModules(path.join(copies, 'raw'));
  const esm = path.join(copies, 'raw', SDK, 'dist', 'esm', 'client');
  const [client, stdio] = await Promise.all([
    import(pathToFileURL(path.join(esm, 'index.js')).href) as Promise<{ Client: typeof Client }>,
    import(pathToFileURL(path.join(esm, 'stdio.js')).href) as Promise<{
      StdioClientTransport: typeof StdioClientTransport;
    }>,
  ]);
  return { Client: client.Client, StdioClientTransport: stdio.StdioClientTransport };
}
