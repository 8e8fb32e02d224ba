/**
 * The layer rule of eslint.config.js, run on fixture files placed in each
 * folder of src/: an import across a forbidden boundary is an error, an
 * allowed one is not. `npm test` runs ESLint on the real tree, so the same
 * rule keeps the code honest.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** Plain JavaScript modules, loaded as ESLint loads them. */
const { default: layers, ALLOWED_IMPORTS } = (await import(
  pathToFileURL(path.join(root, 'eslint/layers.js')).href
)) as { default: ESLint.Plugin; ALLOWED_IMPORTS: Readonly<Record<string, readonly string[]>> };
const { default: projectConfig } = (await import(
  pathToFileURL(path.join(root, 'eslint.config.js')).href
)) as { default: Linter.Config[] };
/** The project's layer entry, on its own: the fixtures are not in the TypeScript project. */
const layerEntry = projectConfig.find(
  (entry) => entry.rules?.['layers/allowed-imports'] !== undefined,
);
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [
    { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
    { ...layerEntry, plugins: { layers } },
  ],
});

/** The layer-rule messages ESLint gives `code` as if it were `file` (relative to the root). */
async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'layers/allowed-imports')
    .map((message) => message.message);
}

describe('layers', () => {
  it.each([
    [
      'src/core/fixture.ts',
      "export { Session } from '../runtime/session.js';",
      'src/core may not import src/runtime',
    ],
    [
      'src/config/fixture.ts',
      "export type { Tool } from '../tools/tool.js';",
      'src/config may not import src/tools',
    ],
    [
      'src/isolation/fixture.ts',
      "export { McpIntegrationSection } from '../mcp/section.js';",
      'src/isolation may not import src/mcp',
    ],
    [
      'src/server/fixture.ts',
      "export { McpIntegrationSection } from '../mcp/section.js';",
      'src/server may not import src/mcp',
    ],
    [
      'src/mcp/fixture.ts',
      "export { toOpenAITools } from '../ecosystem/openai.js';",
      'src/mcp may not import src/ecosystem',
    ],
    [
      'src/mcp/schema/fixture.ts',
      "export { main } from '../../cli/main.js';",
      'src/mcp may not import src/cli',
    ],
    [
      'src/ecosystem/fixture.ts',
      "export { createMcpServer } from '../server/index.js';",
      'src/ecosystem may not import src/server',
    ],
    [
      'src/runtime/fixture.ts',
      "export const load = () => import('../prompt/prompt.js');",
      'src/runtime may not import src/prompt',
    ],
    [
      'src/ecosystem/fixture.ts',
      "export { evaluate } from '../evaluate/evaluate.js';",
      'src/ecosystem may not import src/evaluate',
    ],
  ])('%s: %s is refused', async (file, code, message) => {
    const errors = await layerErrors(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(message);
  });

  it.each([
    [
      'src/mcp/fixture.ts',
      "export { parseServerConfigs } from '../config/parse-server-configs.js';",
    ],
    ['src/server/fixture.ts', "export { McpConfigError } from '../core/errors.js';"],
    ['src/ecosystem/fixture.ts', "export { McpIntegrationSection } from '../mcp/section.js';"],
    ['src/evaluate/fixture.ts', "export { toOpenAITools } from '../ecosystem/openai.js';"],
    ['src/index.ts', "export { main } from './cli/main.js';"],
    ['test/fixture.ts', "export { main } from '../src/cli/main.js';"],
  ])('%s: %s is allowed', async (file, code) => {
    expect(await layerErrors(file, code)).toEqual([]);
  });

  it('is on in eslint.config.js for every file of src/', () => {
    expect(layerEntry?.files).toEqual(['src/**/*.ts']);
    expect(layerEntry?.rules?.['layers/allowed-imports']).toEqual([
      'error',
      { root: path.resolve(root) },
    ]);
  });

  it('names a rule for every folder of src/', async () => {
    const { readdir } = await import('node:fs/promises');
    const folders = (await readdir(path.join(root, 'src'), { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(Object.keys(ALLOWED_IMPORTS).sort()).toEqual(folders);
  });
});
