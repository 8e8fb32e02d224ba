/**
 * An optional peer stays optional: importing the main entry loads no
 * `ioredis` (only `mcp-sections/redis` does). Each import runs in a fresh
 * Node process, whose CommonJS module cache shows what was loaded (ioredis
 * is CommonJS). That the main entry needs no `ai`, `openai` or
 * `@anthropic-ai/sdk` at all is shown by `npm run check:package`, which
 * installs the packed library without them.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The CommonJS packages under node_modules that importing `entry` loads. */
function packagesLoadedBy(entry: string): string[] {
  const script = `
    import(${JSON.stringify(entry)}).then(() => {
      const files = Object.keys(require.cache);
      const names = new Set();
      for (const file of files) {
        const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file);
        if (match) names.add(match[1]);
      }
      console.log(JSON.stringify([...names].sort()));
    });`;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1) ?? '[]') as string[];
}

describe('package entries', () => {
  it('mcp-sections does not load ioredis', () => {
    expect(packagesLoadedBy('./src/index.ts')).not.toContain('ioredis');
  });

  it('mcp-sections/redis loads ioredis (the control)', () => {
    expect(packagesLoadedBy('./src/redis.ts')).toContain('ioredis');
  });
});
