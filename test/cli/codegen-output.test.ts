/**
 * `codegen -o` never writes through a symbolic link: not one planted at the
 * output path (the file it points to stays as it was), nor a planted
 * directory link that `mkdir` would follow. A path that is refused is
 * named in the error, before any server is connected.
 */
import { chmod, lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codegenCommand } from '../../src/cli/commands.js';
import { CliError, EXIT_CODES } from '../../src/cli/exit-codes.js';
import type { HttpHost } from '../support/mcp-fixtures.js';
import { commandContext, configDir, startToolHost, type ConfigDir } from './mcp-host.js';

const VICTIM_TEXT = 'the victim file, not to be overwritten\n';

describe('codegen -o and symbolic links', () => {
  let host: HttpHost;
  let dir: ConfigDir;
  let config: string;
  let shared: string;

  beforeAll(async () => {
    host = await startToolHost([
      { name: 'greet', inputSchema: { type: 'object', properties: { name: { type: 'string' } } } },
    ]);
    dir = await configDir('cli-codegen-output');
    config = await dir.write('servers.json', { srv: { type: 'http', url: host.url('/mcp') } });
    // A directory anyone can write to, as /tmp is: where a link can be planted.
    shared = path.join(dir.dir, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o777);
  });

  afterAll(async () => {
    await host.close();
    await dir.remove();
  });

  /** What `codegen -o output` fails with: a CliError. */
  async function refusal(output: string): Promise<CliError> {
    const error = await codegenCommand(config, output, commandContext()).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CliError);
    return error as CliError;
  }

  it('refuses a symbolic link at the output path, naming it, and leaves its target alone', async () => {
    const victim = path.join(dir.dir, 'victim.txt');
    await writeFile(victim, VICTIM_TEXT);
    const output = path.join(shared, 'tools.ts');
    await symlink(victim, output);
    const error = await refusal(output);
    expect(error.exitCode).toBe(EXIT_CODES.usage);
    expect(error.message).toContain(output);
    expect(error.message).toContain('symbolic link');
    expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT);
    expect((await lstat(output)).isSymbolicLink()).toBe(true);
  });

  it('refuses a planted directory link that mkdir would follow', async () => {
    const elsewhere = path.join(dir.dir, 'elsewhere');
    await mkdir(elsewhere);
    const link = path.join(shared, 'generated');
    await symlink(elsewhere, link);
    const output = path.join(link, 'deeper', 'tools.ts');
    const error = await refusal(output);
    expect(error.message).toContain(link);
    await expect(lstat(path.join(elsewhere, 'deeper'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a planted link above a directory that exists on the way', async () => {
    const victim = path.join(dir.dir, 'victim-project');
    await mkdir(path.join(victim, 'src'), { recursive: true });
    const link = path.join(shared, 'project');
    await symlink(victim, link);
    const output = path.join(link, 'src', 'tools.ts');
    const error = await refusal(output);
    expect(error.message).toContain(link);
    await expect(lstat(path.join(victim, 'src', 'tools.ts'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a directory as the output path, before reading the config', async () => {
    const output = path.join(dir.dir, 'generated-dir');
    await mkdir(output);
    const error = await refusal(output);
    expect(error.exitCode).toBe(EXIT_CODES.usage);
    expect(error.message).toBe(
      `refusing to write ${output}: it is a directory; give the path of a file, e.g. ${path.join(output, 'tools.ts')}`,
    );
    // A config that does not exist is never read: the path fails first.
    const early = await codegenCommand(
      path.join(dir.dir, 'missing.json'),
      output,
      commandContext(),
    ).catch((caught: unknown) => caught);
    expect(early).toBeInstanceOf(CliError);
    expect((early as CliError).exitCode).toBe(EXIT_CODES.usage);
    expect((await lstat(output)).isDirectory()).toBe(true);
  });

  it('refuses a path under a file, naming the file that is not a directory', async () => {
    const file = path.join(dir.dir, 'plain-file.json');
    await writeFile(file, '{}\n');
    for (const output of [path.join(file, 'tools.ts'), path.join(file, 'deeper', 'tools.ts')]) {
      const error = await refusal(output);
      expect(error.exitCode).toBe(EXIT_CODES.usage);
      expect(error.message).toBe(`refusing to write ${output}: ${file} is not a directory`);
    }
    expect(await readFile(file, 'utf8')).toBe('{}\n');
  });

  it('replaces a regular file at the output path and creates missing directories', async () => {
    const output = path.join(dir.dir, 'out', 'nested', 'tools.ts');
    await mkdir(path.dirname(output), { recursive: true });
    await writeFile(output, 'old content\n');
    expect(await codegenCommand(config, output, commandContext())).toBe(EXIT_CODES.ok);
    expect(await readFile(output, 'utf8')).toContain('export const srvGreetArgs = z.object(');
    const fresh = path.join(dir.dir, 'new', 'dir', 'tools.ts');
    expect(await codegenCommand(config, fresh, commandContext())).toBe(EXIT_CODES.ok);
    expect(await readFile(fresh, 'utf8')).toContain('srvGreetArgs');
  });
});
