// @ts-check
/**
 * The layer rule: a folder of `src/` may import only the folders below it.
 *
 *   core ← config ← server
 *   core ← runtime ← tools ← prompt ← mcp ← ecosystem ← trace ← cli
 *                                            ecosystem ← evaluate
 *              config, executor, isolation ← mcp
 *
 * An import is resolved against the importing file; one that lands in
 * another folder of `src/` must be allowed for the importing folder.
 * `src/index.ts` (the package entry) may import anything; nothing may import
 * `cli`. See docs/architecture.md.
 */
import path from 'node:path';

/** The client library below the adapters: everything the MCP layer builds on, and itself. */
const MCP_AND_BELOW = [
  'core',
  'config',
  'runtime',
  'tools',
  'prompt',
  'executor',
  'isolation',
  'mcp',
];

/** What each folder of `src/` may import, besides itself. */
export const ALLOWED_IMPORTS = Object.freeze({
  core: [],
  config: ['core'],
  runtime: ['core'],
  tools: ['core', 'runtime'],
  prompt: ['core', 'runtime', 'tools'],
  executor: ['core'],
  isolation: ['core', 'config', 'runtime', 'tools'],
  mcp: ['core', 'config', 'runtime', 'tools', 'prompt', 'executor', 'isolation'],
  server: ['core', 'config'],
  ecosystem: MCP_AND_BELOW,
  trace: [...MCP_AND_BELOW, 'ecosystem'],
  evaluate: [...MCP_AND_BELOW, 'ecosystem'],
  cli: [...MCP_AND_BELOW, 'ecosystem', 'trace'],
});

/** The folder of `src/` that `file` is in; '' for a file directly in `src/`; undefined outside. */
function layerOf(sourceRoot, file) {
  const relative = path.relative(sourceRoot, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  const parts = relative.split(path.sep);
  return parts.length === 1 ? '' : parts[0];
}

/** @type {import('eslint').Rule.RuleModule} */
const allowedImports = {
  meta: {
    type: 'problem',
    docs: { description: 'A folder of src/ imports only the layers below it' },
    schema: [
      {
        type: 'object',
        properties: { root: { type: 'string' } },
        required: ['root'],
        additionalProperties: false,
      },
    ],
    messages: {
      forbidden:
        'src/{{from}} may not import src/{{to}} ("{{source}}"): {{from}} may import only {{allowed}} (docs/architecture.md)',
    },
  },
  create(context) {
    const sourceRoot = path.join(context.options[0].root, 'src');
    const from = layerOf(sourceRoot, context.filename);
    if (from === undefined || from === '') return {};
    const allowed = ALLOWED_IMPORTS[from] ?? [];
    /** @param {import('estree').Node & { source?: import('estree').Expression | null }} node */
    const check = (node) => {
      const source = node.source;
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      if (!source.value.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), source.value);
      const to = layerOf(sourceRoot, target);
      if (to === undefined || to === from || to === '' || allowed.includes(to)) return;
      context.report({
        node: source,
        messageId: 'forbidden',
        data: {
          from,
          to,
          source: source.value,
          allowed: allowed.length === 0 ? 'nothing outside itself' : allowed.join(', '),
        },
      });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default { rules: { 'allowed-imports': allowedImports } };
