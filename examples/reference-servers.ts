/**
 * Where the reference MCP servers installed from npm keep their start
 * script, so examples can run them with this Node (`process.execPath`)
 * straight from node_modules — no network, no `npx`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';

/** Absolute path of the script a package names in its `bin` field. */
export function referenceServerScript(packageName: string): string {
  const manifestPath = createRequire(import.meta.url).resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const bin =
    typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (bin === undefined) throw new Error(`${packageName} names no start script in its "bin" field`);
  return resolve(dirname(manifestPath), bin);
}
