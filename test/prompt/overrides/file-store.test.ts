/**
 * FilePromptOverridesStore against a real directory: the layout, both
 * formats, atomic replacement, names that would leave the directory, and
 * files that do not parse.
 */
import { chmod, chown, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  FilePromptOverridesStore,
  MarkdownSection,
  Prompt,
  PromptOverrideApplied,
  PromptOverridesError,
  PromptTemplate,
  Session,
  contentHash,
  parsePromptOverrides,
  type PromptOverrides,
} from '../../../src/index.js';
import { recordEvents, tempDir, type TempDir } from '../../support/mcp-fixtures.js';

const HASH = contentHash('Be brief.');

function sample(tag = 'stable'): PromptOverrides {
  return parsePromptOverrides({
    ns: 'demo',
    key: 'welcome',
    tag,
    sections: {
      'task.style': { expectedHash: HASH, body: 'Answer in one sentence.\nCite sources.' },
    },
    tools: { search: { expectedHash: contentHash('Searches'), description: 'Full-text search' } },
  });
}

const ref = { ns: 'demo', key: 'welcome', tag: 'stable' } as const;

describe('FilePromptOverridesStore', () => {
  let dir: TempDir;
  let store: FilePromptOverridesStore;

  beforeEach(async () => {
    dir = await tempDir('overrides-store');
    store = new FilePromptOverridesStore({ dir: dir.path });
  });
  afterEach(async () => {
    await dir[Symbol.asyncDispose]();
  });

  const fileOf = (name: string): string => path.join(dir.path, 'demo', 'welcome', name);

  it('writes <dir>/<ns>/<key>/<tag>.json atomically and reads it back', async () => {
    await store.upsert(sample());

    expect(await readdir(path.join(dir.path, 'demo', 'welcome'))).toEqual(['stable.json']);
    expect(await store.locate(ref)).toBe(fileOf('stable.json'));
    const written = JSON.parse(await readFile(fileOf('stable.json'), 'utf8')) as unknown;
    expect(written).toEqual({
      version: 1,
      ns: 'demo',
      key: 'welcome',
      tag: 'stable',
      sections: {
        'task.style': { expectedHash: HASH, body: 'Answer in one sentence.\nCite sources.' },
      },
      tools: { search: { expectedHash: contentHash('Searches'), description: 'Full-text search' } },
    });
    expect((await stat(fileOf('stable.json'))).mode & 0o777).toBe(0o644);
    expect(await store.resolve(ref)).toEqual(sample());
    expect(Object.isFrozen(await store.resolve(ref))).toBe(true);
  });

  it('replaces a file whole: the second upsert is what resolve reads', async () => {
    await store.upsert(sample());
    const changed = parsePromptOverrides({ ...sample(), tools: {} });
    await store.upsert(changed);
    expect((await store.resolve(ref))?.tools).toEqual({});
    expect(await readdir(path.join(dir.path, 'demo', 'welcome'))).toEqual(['stable.json']);
  });

  it('writes YAML when asked, multi-line bodies as block text, and reads it back', async () => {
    const yamlStore = new FilePromptOverridesStore({ dir: dir.path, format: 'yaml' });
    await yamlStore.upsert(sample());
    const text = await readFile(fileOf('stable.yaml'), 'utf8');
    expect(text).toContain('body: |-\n      Answer in one sentence.\n      Cite sources.');
    expect(await yamlStore.resolve(ref)).toEqual(sample());
    // Any store reads any format.
    expect(await store.resolve(ref)).toEqual(sample());
  });

  it('reads a hand-written .yml file, and keeps its format when writing', async () => {
    await mkdir(path.dirname(fileOf('x')), { recursive: true });
    await writeFile(
      fileOf('stable.yml'),
      [
        'version: 1',
        'ns: demo',
        'key: welcome',
        'tag: stable',
        'sections:',
        '  task.style:',
        `    expectedHash: ${HASH}`,
        '    body: Be very brief.',
      ].join('\n'),
    );
    expect((await store.resolve(ref))?.sections['task.style']?.body).toBe('Be very brief.');
    await store.upsert(sample());
    expect(await readdir(path.dirname(fileOf('x')))).toEqual(['stable.yml']);
    expect((await store.resolve(ref))?.sections['task.style']?.body).toContain('Cite sources.');
  });

  it('resolves undefined when nothing is stored, and delete says whether something was', async () => {
    expect(await store.resolve(ref)).toBeUndefined();
    expect(await store.delete(ref)).toBe(false);
    await store.upsert(sample());
    expect(await store.delete(ref)).toBe(true);
    expect(await store.resolve(ref)).toBeUndefined();
  });

  it.each([
    [{ ns: 'demo', key: 'welcome', tag: '../../escape' }, 'tag "../../escape"'],
    [{ ns: 'demo', key: 'welcome', tag: 'a/b' }, 'tag "a/b"'],
    [{ ns: '..', key: 'welcome', tag: 'latest' }, 'ns ".."'],
    [{ ns: 'demo', key: '/etc/passwd', tag: 'latest' }, 'key "/etc/passwd"'],
    [{ ns: 'demo', key: 'Welcome', tag: 'latest' }, 'key "Welcome"'],
    [{ ns: 'demo', key: 'welcome', tag: '' }, 'tag ""'],
  ])('refuses %j before touching the file system', async (bad, quoted) => {
    await expect(store.resolve(bad)).rejects.toThrow(PromptOverridesError);
    await expect(store.resolve(bad)).rejects.toThrow(
      `overrides ${quoted} must match ^[a-z0-9][a-z0-9._-]{0,63}$`,
    );
    await expect(store.delete(bad)).rejects.toThrow(quoted);
    await expect(store.upsert({ ...bad, sections: {}, tools: {} })).rejects.toThrow(quoted);
    expect(await readdir(dir.path)).toEqual([]);
  });

  describe('a file that does not parse is an error naming the file and what is wrong', () => {
    async function write(name: string, text: string): Promise<string> {
      await mkdir(path.dirname(fileOf(name)), { recursive: true });
      await writeFile(fileOf(name), text);
      return fileOf(name);
    }
    const header = { version: 1, ns: 'demo', key: 'welcome', tag: 'stable' };

    it.each([
      ['not JSON', '{"version": 1,', 'is not valid JSON at line 1, column 15'],
      [
        'an array',
        '[]',
        'expected an object with ns, key, tag, sections and tools, received an array',
      ],
      [
        'a misspelt field',
        JSON.stringify({
          ...header,
          sections: { task: { expected_hash: HASH, expectedHash: HASH, body: 'x' } },
        }),
        'sections.task: unknown field "expected_hash"',
      ],
      [
        'a bad hash',
        JSON.stringify({ ...header, tools: { search: { expectedHash: 'md5', description: 'x' } } }),
        'tools.search.expectedHash: must be a lowercase hex SHA-256 digest (64 characters), received (a text of 3 characters)',
      ],
      [
        'an empty description',
        JSON.stringify({ ...header, tools: { search: { expectedHash: HASH, description: '  ' } } }),
        'tools.search.description: must not be empty',
      ],
      [
        'a body that is not text',
        JSON.stringify({ ...header, sections: { task: { expectedHash: HASH, body: 42 } } }),
        'sections.task.body: must be a string',
      ],
      [
        'a bad tool name',
        JSON.stringify({
          ...header,
          tools: { 'Search!': { expectedHash: HASH, description: 'x' } },
        }),
        'tools: "Search!" is not a tool name (^[a-z0-9_-]{1,64}$)',
      ],
      [
        'sections as a list',
        JSON.stringify({ ...header, sections: [] }),
        'sections: expected an object keyed by name, received an array',
      ],
      [
        'no version',
        JSON.stringify({ ...header, version: undefined }),
        'version: missing; expected 1',
      ],
      [
        'another version',
        JSON.stringify({ ...header, version: 2 }),
        'version: must be 1, received 2',
      ],
      [
        'another tag than its name says',
        JSON.stringify({ ...header, tag: 'latest' }),
        'tag is "latest", but the file\'s place in',
      ],
    ])('%s', async (_what, text, message) => {
      const file = await write('stable.json', text);
      const failure = store.resolve(ref);
      await expect(failure).rejects.toThrow(PromptOverridesError);
      await expect(store.resolve(ref)).rejects.toThrow(`overrides file ${JSON.stringify(file)}`);
      await expect(store.resolve(ref)).rejects.toThrow(message);
    });

    it('not YAML', async () => {
      const file = await write('stable.yaml', 'version: 1\nns: [demo\n');
      await expect(store.resolve(ref)).rejects.toThrow(
        `overrides file ${JSON.stringify(file)} is not valid YAML at line 3, column 1: `,
      );
    });

    // The parsers quote the text around the error: a credentials file
    // (linked there, or pasted by mistake) would be shown in the error.
    it.each([
      [
        'stable.yaml',
        '[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n  bad: {indent\n',
        /is not valid YAML at line \d+, column \d+: [A-Z_]+$/,
      ],
      [
        'stable.yaml',
        'sections:\n  task: {expectedHash: x, body: "DB_PASSWORD=wJalrXUtnFEMI/K7MDENG" : oops}\n',
        /is not valid YAML at line \d+, column \d+: [A-Z_]+$/,
      ],
      ['stable.json', 'STRIPE_KEY=wJalrXUtnFEMI/K7MDENG\n', /is not valid JSON$/],
      [
        'stable.json',
        '{"key": "wJalrXUtnFEMI/K7MDENG" x}',
        /is not valid JSON at line 1, column 33$/,
      ],
    ])('a syntax error in %s says where, never what the file holds', async (name, text, says) => {
      await write(name, text);
      const error = await store.resolve(ref).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PromptOverridesError);
      const { message, cause } = error as PromptOverridesError;
      expect(message).toMatch(says);
      expect(message).not.toContain('wJalrXUtnFEMI');
      expect(message).not.toContain('K7MDENG');
      expect(cause).toBeUndefined();
    });

    // What sits in a file's place may be any text: a document that parses
    // but is wrong is named by its field and the kind and length of its value.
    it.each([
      [
        'stable.yaml',
        'GITHUB_TOKEN=ghp_wJalrXUtnFEMIK7MDENG\nOTHER=value\n',
        'a text of 49 characters',
      ],
      ['stable.json', JSON.stringify('Bearer ghp_wJalrXUtnFEMIK7MDENG'), 'a text of 31 characters'],
      [
        'stable.json',
        JSON.stringify({ ...header, sections: 'token ghp_wJalrXUtnFEMIK7MDENG' }),
        'sections: expected an object keyed by name, received (a text of 30 characters)',
      ],
      [
        'stable.json',
        JSON.stringify({
          ...header,
          sections: { task: { expectedHash: 'ghp_wJalrXUtnFEMIK7MDENG', body: 'x' } },
        }),
        'received (a text of 24 characters)',
      ],
      [
        'stable.json',
        JSON.stringify({ ...header, ns: `ghp_wJalrXUtnFEMIK7MDENG${'x'.repeat(5_000_000)}` }),
        'ns (a text of 5000024 characters) must match',
      ],
      ['stable.yaml', 'version: 1\nns: *ghp_wJalrXUtnFEMIK7MDENG\n', 'an alias without its anchor'],
      ['stable.yaml', '%YAML 1.1\n---\nversion: 1\n<<: ghp_wJalrXUtnFEMIK7MDENG\n', 'a merge key'],
      [
        'stable.yaml',
        'version: 1\nns: demo\nkey: welcome\ntag: stable\ntools: !!omap [ {a: b} ]\n',
        'a YAML !!omap or !!set',
      ],
    ])('a wrong document in %s never quotes its values: %j', async (name, text, says) => {
      const file = await write(name, text);
      const error = await store.resolve(ref).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PromptOverridesError);
      const { message } = error as PromptOverridesError;
      expect(message).toContain(`overrides file ${JSON.stringify(file)}`);
      expect(message).toContain(says);
      expect(message).not.toContain('wJalrXUtnFEMI');
      expect(message.length).toBeLessThan(400);
    });

    it('two files for one tag', async () => {
      await write('stable.json', JSON.stringify(header));
      await write('stable.yaml', 'version: 1\n');
      await expect(store.resolve(ref)).rejects.toThrow(
        'overrides of "demo/welcome" tag "stable" are in 2 files',
      );
      await expect(store.upsert(sample())).rejects.toThrow('keep one');
    });

    it('a directory in place of the file', async () => {
      await mkdir(fileOf('stable.json'), { recursive: true });
      await expect(store.resolve(ref)).rejects.toThrow(
        `overrides file ${JSON.stringify(fileOf('stable.json'))} is a directory`,
      );
    });
  });

  describe('a symbolic link below dir is refused: nothing is read or written through it', () => {
    let outside: TempDir;
    beforeEach(async () => {
      outside = await tempDir('overrides-outside');
    });
    afterEach(async () => {
      await outside[Symbol.asyncDispose]();
    });

    it.each([
      ['<ns>', ['demo']],
      ['<ns>/<key>', ['demo', 'welcome']],
    ])('a linked %s directory', async (_what, parts) => {
      const link = path.join(dir.path, ...parts);
      await mkdir(path.dirname(link), { recursive: true });
      await symlink(outside.path, link);
      const secret = path.join(outside.path, ...(parts.length === 1 ? ['welcome'] : []));
      await mkdir(secret, { recursive: true });
      await writeFile(path.join(secret, 'stable.json'), JSON.stringify(sample()));
      const says = `overrides directory ${JSON.stringify(link)} is a symbolic link`;

      await expect(store.upsert(sample('latest'))).rejects.toThrow(says);
      await expect(store.upsert(sample('latest'))).rejects.toThrow(
        'replace the link with a directory',
      );
      await expect(store.resolve(ref)).rejects.toThrow(says);
      await expect(store.locate(ref)).rejects.toThrow(says);
      await expect(store.delete(ref)).rejects.toThrow(says);
      // Nothing written, nothing removed outside dir.
      expect((await readdir(secret)).sort()).toEqual(['stable.json']);
    });

    it('a linked file, to a file outside dir', async () => {
      const secret = path.join(outside.path, 'credentials');
      await writeFile(secret, '[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n');
      await mkdir(path.dirname(fileOf('stable.yaml')), { recursive: true });
      await symlink(secret, fileOf('stable.yaml'));
      const says = `overrides file ${JSON.stringify(fileOf('stable.yaml'))} is a symbolic link`;

      const error = await store.resolve(ref).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PromptOverridesError);
      expect((error as Error).message).toContain(says);
      expect((error as Error).message).not.toContain('wJalrXUtnFEMI');
      await expect(store.upsert(sample())).rejects.toThrow(says);
      expect(await readFile(secret, 'utf8')).toContain('wJalrXUtnFEMI');
    });

    it('a dangling link in the place of the file', async () => {
      await mkdir(path.dirname(fileOf('stable.json')), { recursive: true });
      await symlink(path.join(outside.path, 'planted.json'), fileOf('stable.json'));
      await expect(store.resolve(ref)).rejects.toThrow('is a symbolic link');
      await expect(store.upsert(sample())).rejects.toThrow('is a symbolic link');
      expect(await readdir(outside.path)).toEqual([]);
    });

    it("dir itself may be a link: it is the caller's to choose", async () => {
      const linked = path.join(outside.path, 'linked-overrides');
      await symlink(dir.path, linked);
      const viaLink = new FilePromptOverridesStore({ dir: linked });
      await viaLink.upsert(sample());
      expect(await viaLink.resolve(ref)).toEqual(sample());
      expect(await readdir(path.join(dir.path, 'demo', 'welcome'))).toEqual(['stable.json']);
      expect(await viaLink.delete(ref)).toBe(true);
    });
  });

  describe('a directory another user could change is refused (they could swap in a link after the check)', () => {
    it('writable by others, without the sticky bit', async () => {
      await mkdir(path.join(dir.path, 'demo'), { recursive: true });
      await chmod(path.join(dir.path, 'demo'), 0o777);
      const says = `overrides directory ${JSON.stringify(path.join(dir.path, 'demo'))} is writable by other users (mode 777)`;
      await expect(store.upsert(sample())).rejects.toThrow(says);
      await expect(store.resolve(ref)).rejects.toThrow(says);
      await expect(store.delete(ref)).rejects.toThrow(says);
      await chmod(dir.path, 0o1777); // the sticky bit, as /tmp: others cannot swap entries of ours
      await chmod(path.join(dir.path, 'demo'), 0o755);
      await store.upsert(sample());
      expect(await store.resolve(ref)).toEqual(sample());
    });

    it('a directory above dir that others can write, without the sticky bit', async () => {
      const checkout = path.join(dir.path, 'checkout');
      await mkdir(path.join(checkout, 'overrides'), { recursive: true });
      await chmod(checkout, 0o777);
      const above = new FilePromptOverridesStore({ dir: path.join(checkout, 'overrides') });
      const says = `${JSON.stringify(checkout)} on the way (uid ${process.geteuid?.()}, mode 777) lets another user replace`;
      await expect(above.upsert(sample())).rejects.toThrow(says);
      await expect(above.resolve(ref)).rejects.toThrow(says);
      await chmod(checkout, 0o755);
      await above.upsert(sample());
    });

    it('dir as a link through another link: refused, as nobody checks the path between', async () => {
      const safe = path.join(dir.path, 'safe');
      const hop = path.join(dir.path, 'hop');
      await mkdir(safe);
      await symlink(safe, hop);
      const entry = path.join(dir.path, 'prompts');
      await symlink(path.join(hop), entry);
      const chained = new FilePromptOverridesStore({ dir: entry });
      await expect(chained.upsert(sample())).rejects.toThrow(
        `the link ${JSON.stringify(entry)} leads through another link (${JSON.stringify(hop)})`,
      );
      // Straight to the directory: fine.
      const straight = path.join(dir.path, 'straight');
      await symlink(safe, straight);
      await new FilePromptOverridesStore({ dir: straight }).upsert(sample());
    });

    it('dir as a link that others could re-point: the directory holding the link is checked', async () => {
      const shared = path.join(dir.path, 'shared');
      const safe = path.join(dir.path, 'safe');
      await mkdir(shared);
      await mkdir(safe);
      await symlink(safe, path.join(shared, 'prompts'));
      await chmod(shared, 0o777);
      const linked = new FilePromptOverridesStore({ dir: path.join(shared, 'prompts') });
      await expect(linked.upsert(sample())).rejects.toThrow(
        `${JSON.stringify(shared)} on the way (uid ${process.geteuid?.()}, mode 777) lets another user replace`,
      );
      await expect(readdir(safe)).resolves.toEqual([]);
    });

    it.runIf(process.geteuid?.() === 0)(
      'a directory above dir owned by another user (as root)',
      async () => {
        const checkout = path.join(dir.path, 'checkout');
        await mkdir(path.join(checkout, 'overrides'), { recursive: true });
        await chown(checkout, 65_534, 65_534);
        const above = new FilePromptOverridesStore({ dir: path.join(checkout, 'overrides') });
        await expect(above.upsert(sample())).rejects.toThrow(
          `${JSON.stringify(checkout)} on the way (uid 65534, mode 755) lets another user replace`,
        );
      },
    );

    it.runIf(process.geteuid?.() === 0)('owned by another user (as root)', async () => {
      await mkdir(path.join(dir.path, 'demo', 'welcome'), { recursive: true });
      await chown(path.join(dir.path, 'demo'), 65_534, 65_534);
      const says = `overrides directory ${JSON.stringify(path.join(dir.path, 'demo'))} belongs to another user (uid 65534)`;
      await expect(store.upsert(sample())).rejects.toThrow(says);
      await expect(store.resolve(ref)).rejects.toThrow(says);
    });
  });

  it('keeps a tool named __proto__ as an own entry and pollutes nothing', async () => {
    const hostile = parsePromptOverrides(
      JSON.parse(
        `{"ns":"demo","key":"welcome","tag":"stable","tools":{"__proto__":{"expectedHash":"${HASH}","description":"x"}}}`,
      ) as unknown,
    );
    expect(Object.keys(hostile.tools)).toEqual(['__proto__']);
    await store.upsert(hostile);
    const back = await store.resolve(ref);
    expect(Object.keys(back!.tools)).toEqual(['__proto__']);
    expect(Object.hasOwn(back!.tools, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).description).toBeUndefined();
  });

  it('stops at an aborted signal', async () => {
    await store.upsert(sample());
    const controller = new AbortController();
    controller.abort();
    await expect(store.resolve(ref, { signal: controller.signal })).rejects.toThrow(/abort/i);
    await expect(store.upsert(sample(), { signal: controller.signal })).rejects.toThrow(/abort/i);
  });

  it('refuses an empty dir and an unknown format', () => {
    expect(() => new FilePromptOverridesStore({ dir: ' ' })).toThrow(
      'overrides dir must be a non-empty path, received " "',
    );
    expect(() => new FilePromptOverridesStore({ dir: dir.path, format: 'toml' as 'json' })).toThrow(
      'overrides file format "toml" must be one of json, yaml',
    );
  });

  it('feeds Prompt.withOverrides: the stored tag applies, a missing one leaves the code text', async () => {
    const Params = z.object({ user: z.string() });
    const template = PromptTemplate.create({
      ns: 'demo',
      key: 'welcome',
      sections: [
        new MarkdownSection({
          key: 'task',
          title: 'Task',
          params: Params,
          template: 'Help ${user}.',
          acceptsOverrides: true,
          children: [
            new MarkdownSection({
              key: 'style',
              title: 'Style',
              template: 'Be brief.',
              acceptsOverrides: true,
            }),
          ],
        }),
      ],
    });
    await store.upsert(parsePromptOverrides({ ...sample(), tools: {} }));
    const session = new Session();
    const events = recordEvents(session);

    const stable = await Prompt.withOverrides(template, { store, tag: 'stable' });
    const latest = await Prompt.withOverrides(template, { store });

    expect(stable.overrides?.tag).toBe('stable');
    expect(latest.overrides).toBeUndefined();
    const rendered = stable.bind(Params, { user: 'Ada' }).render({ session });
    expect(rendered.text).toContain('Answer in one sentence.\nCite sources.');
    expect(events.of(PromptOverrideApplied)).toEqual([
      expect.objectContaining({ tag: 'stable', path: 'task.style' }),
    ]);
  });
});
