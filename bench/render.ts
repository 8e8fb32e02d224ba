/**
 * Render + `toolDefinitions()` of a prompt whose MCP section offers 10,
 * 1,000 or 10,000 tools, when the tool list has not changed since the last
 * render (the case of every turn of an agent loop) — against a one-pass
 * string: one line per tool, name and description, the least any inventory
 * costs.
 */
import type { Tool } from '../src/index.js';
import { type Caller, interleave, isQuick, perCallRows } from './interleave.js';
import { type Library, loadLibrary } from './library.js';
import { generateTools } from './schema-gen.js';
import { listingServer } from './servers.js';
import { type ResultRow, round, trimmedMean } from './stats.js';

/** The sizes, smallest first. */
export const RENDER_SIZES = [10, 1_000, 10_000] as const;

/** The goal, per render + definitions with 1,000 unchanged tools, in ms. */
const GOAL_MS = 0.1;

/** The baseline: one pass over the tools, one line each. */
function onePass(tools: readonly Tool[]): string {
  let text = '';
  for (const tool of tools) text += `- ${tool.name}: ${tool.description}\n`;
  return text;
}

async function renderSize(lib: Library, size: number): Promise<ResultRow[]> {
  const tools = generateTools(size).map((g) => g.tool);
  const session = new lib.Session();
  const section = new lib.McpIntegrationSection({
    servers: [{ name: 'many', transport: { type: 'in-memory', server: listingServer(tools) } }],
    session,
  });
  await section.connect();
  try {
    const prompt = new lib.Prompt(
      lib.PromptTemplate.create({ ns: 'bench', key: 'render', sections: [section] }),
    );
    const bridged = section.tools();
    let sink = 0;
    const ours = `render + toolDefinitions(), ${size.toLocaleString('en-US')} tools (dist)`;
    const base = `one-pass string, ${size.toLocaleString('en-US')} tools`;
    const callers: Caller[] = [
      {
        name: base,
        call: () => {
          sink += onePass(bridged).length;
          return Promise.resolve();
        },
      },
      {
        name: ours,
        call: () => {
          const rendered = prompt.render({ session });
          sink += rendered.toolDefinitions().length + rendered.text.length;
          return Promise.resolve();
        },
      },
    ];
    const rounds = isQuick() ? 60 : size >= 10_000 ? 300 : 1_500;
    const plan = { warmup: Math.ceil(rounds / 10), rounds, chunk: rounds / 3 };
    const times = await interleave(callers, plan);
    if (sink === 0) throw new Error('nothing rendered');
    const mean = trimmedMean(times.get(ours)!);
    return perCallRows(`render, ${size.toLocaleString('en-US')} tools unchanged`, times, {
      baseline: base,
      plan,
      unit: 'ms',
    }).map((row): ResultRow => {
      if (row.contender !== ours) return { ...row, unit: 'ms/render' };
      const note = `${round((mean * 1_000) / size, 4)} µs per tool`;
      return size === 1_000
        ? { ...row, unit: 'ms/render', note, goal: `≤ ${GOAL_MS} ms`, met: mean <= GOAL_MS }
        : { ...row, unit: 'ms/render', note };
    });
  } finally {
    await section.disconnect();
  }
}

/** Runs the render comparison at every size. */
export async function render(): Promise<ResultRow[]> {
  const lib = await loadLibrary();
  const rows: ResultRow[] = [];
  for (const size of RENDER_SIZES) rows.push(...(await renderSize(lib, size)));
  return rows;
}
