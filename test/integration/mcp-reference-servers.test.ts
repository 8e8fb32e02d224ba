/**
 * server-filesystem and server-memory over stdio: their array-of-object
 * arguments validate, and bad arguments never reach the server.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  McpIntegrationSection,
  Session,
  ToolInvoked,
  invokeTool,
  type McpToolValue,
} from '../../src/index.js';
import { filesystemServerPath, memoryServerPath } from '../support/everything.js';
import { recordEvents, tempDir, toolNamed, type TempDir } from '../support/mcp-fixtures.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';

const ORIGINAL_TEXT = 'alpha\nbeta\ngamma\n';

describe('server-filesystem and server-memory over stdio', () => {
  let before: number[];
  let root: TempDir;
  let memoryDir: TempDir;
  let memoryFile: string;
  let notes: string;
  let session: Session;
  let section: McpIntegrationSection;

  beforeAll(async () => {
    before = childPids();
    root = await tempDir('mcp-fs-root');
    memoryDir = await tempDir('mcp-memory');
    memoryFile = path.join(memoryDir.path, 'memory.jsonl');
    notes = path.join(root.path, 'notes.txt');
    await writeFile(notes, ORIGINAL_TEXT);
    session = new Session();
    section = new McpIntegrationSection({
      servers: [
        {
          name: 'fs',
          transport: {
            type: 'stdio',
            command: process.execPath,
            args: [filesystemServerPath, root.path],
          },
        },
        {
          name: 'memory',
          transport: { type: 'stdio', command: process.execPath, args: [memoryServerPath] },
          env: { MEMORY_FILE_PATH: memoryFile },
        },
      ],
      session,
    });
    await section.connect();
  });

  afterAll(async () => {
    await section?.disconnect();
    await root?.[Symbol.asyncDispose]();
    await memoryDir?.[Symbol.asyncDispose]();
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  describe('edit_file', () => {
    it('accepts an edits array of { oldText, newText } objects and edits the file', async () => {
      const result = await invokeTool(
        toolNamed(section, 'fs_edit_file'),
        {
          path: notes,
          edits: [
            { oldText: 'beta', newText: 'BETA' },
            { oldText: 'gamma', newText: 'GAMMA' },
          ],
        },
        { session },
      );
      expect(result.success, result.message).toBe(true);
      expect(result.message).toContain('```diff');
      expect(await readFile(notes, 'utf8')).toBe('alpha\nBETA\nGAMMA\n');
      await writeFile(notes, ORIGINAL_TEXT);
    });

    it.each([
      ['an edit without newText', { edits: [{ oldText: 'alpha' }] }, /edits\.0\.newText: /],
      [
        'an edit whose newText is a number',
        {
          edits: [
            { oldText: 'alpha', newText: 'ok' },
            { oldText: 'beta', newText: 7 },
          ],
        },
        /edits\.1\.newText: /,
      ],
      ['edits that are not an array', { edits: { oldText: 'alpha', newText: 'x' } }, /edits: /],
      [
        'dryRun that is not a boolean',
        { edits: [{ oldText: 'alpha', newText: 'x' }], dryRun: 'no' },
        /dryRun: /,
      ],
    ])('refuses %s before the server sees it', async (_label, args, field) => {
      const events = recordEvents(session);
      const result = await invokeTool(
        toolNamed(section, 'fs_edit_file'),
        { path: notes, ...args },
        { session },
      );
      events.stop();
      expect(result.success).toBe(false);
      expect(result.message).toMatch(/^invalid arguments for tool "fs_edit_file": /);
      expect(result.message).toMatch(field);
      expect(await readFile(notes, 'utf8')).toBe(ORIGINAL_TEXT);
      const invoked = events.of(ToolInvoked);
      expect(invoked.map((event) => [event.toolName, event.result.success])).toEqual([
        ['fs_edit_file', false],
      ]);
    });
  });

  describe('create_entities', () => {
    it('accepts entities with observations arrays and stores them', async () => {
      const entities = [
        {
          name: 'Ada',
          entityType: 'person',
          observations: ['wrote the first program', 'mathematician'],
        },
        { name: 'Engine', entityType: 'machine', observations: [] },
      ];
      const result = await invokeTool(
        toolNamed(section, 'memory_create_entities'),
        { entities },
        { session },
      );
      expect(result.success, result.message).toBe(true);
      expect((result.value as McpToolValue).structuredContent).toEqual({ entities });
      const stored = (await readFile(memoryFile, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(stored).toEqual(entities.map((entity) => ({ type: 'entity', ...entity })));
    });

    it.each([
      [
        'observations that are a string',
        [{ name: 'Bob', entityType: 'person', observations: 'likes tea' }],
        /entities\.0\.observations: /,
      ],
      [
        'an observation that is a number',
        [{ name: 'Bob', entityType: 'person', observations: ['likes tea', 42] }],
        /entities\.0\.observations\.1: /,
      ],
      [
        'an entity without entityType',
        [{ name: 'Bob', observations: [] }],
        /entities\.0\.entityType: /,
      ],
    ])('refuses %s; the memory file never holds the entity', async (_label, entities, field) => {
      const result = await invokeTool(
        toolNamed(section, 'memory_create_entities'),
        { entities },
        { session },
      );
      expect(result.success).toBe(false);
      expect(result.message).toMatch(/^invalid arguments for tool "memory_create_entities": /);
      expect(result.message).toMatch(field);
      const text = existsSync(memoryFile) ? await readFile(memoryFile, 'utf8') : '';
      expect(text).not.toContain('Bob');
      // The server agrees: its graph has no Bob.
      const graph = await invokeTool(
        toolNamed(section, 'memory_search_nodes'),
        { query: 'Bob' },
        { session },
      );
      expect(graph.success).toBe(true);
      expect((graph.value as McpToolValue).structuredContent).toEqual({
        entities: [],
        relations: [],
      });
    });
  });
});
