/**
 * What progressive disclosure saves: the prompt text plus the JSON of
 * `toolDefinitions()` (what a request to an LLM API carries) for 10
 * in-process MCP servers of 30 tools each, rendered in full, summarized,
 * and summarized with one server opened. Tokens are approximate: characters
 * divided by 4, the usual rule of thumb for English and JSON; no tokenizer
 * is involved.
 *
 * One comparison of `npm run bench` (`disclosure`).
 */
import {
  McpIntegrationSection,
  Prompt,
  PromptTemplate,
  Session,
  invokeTool,
  type RenderedPrompt,
  type SectionVisibility,
} from '../src/index.js';
import { generateTools } from './schema-gen.js';
import { listingServer } from './servers.js';
import type { ResultRow } from './stats.js';

const SERVERS = 10;
const TOOLS_PER_SERVER = 30;
/** Characters per token, for the approximate token counts. */
const CHARS_PER_TOKEN = 4;

const generated = generateTools(SERVERS * TOOLS_PER_SERVER).map((entry) => entry.tool);

function sectionFor(session: Session, visibility: SectionVisibility): McpIntegrationSection {
  return new McpIntegrationSection({
    servers: Array.from({ length: SERVERS }, (_, index) => ({
      name: `server${index}`,
      transport: {
        type: 'in-memory' as const,
        server: listingServer(
          generated.slice(index * TOOLS_PER_SERVER, (index + 1) * TOOLS_PER_SERVER),
        ),
      },
    })),
    session,
    visibility,
  });
}

const COMPARISON = `prompt size, ${SERVERS} servers × ${TOOLS_PER_SERVER} tools`;

function measure(variant: string, rendered: RenderedPrompt, full?: ResultRow): ResultRow {
  const definitions = JSON.stringify(rendered.toolDefinitions());
  const bytes = Buffer.byteLength(rendered.text) + Buffer.byteLength(definitions);
  const tokens = Math.round((rendered.text.length + definitions.length) / CHARS_PER_TOKEN);
  const count = rendered.tools.length;
  const note = `${count} tool${count === 1 ? '' : 's'} offered; ≈ ${tokens.toLocaleString('en-US')} tokens (characters / ${CHARS_PER_TOKEN})`;
  return {
    comparison: COMPARISON,
    contender: variant,
    value: bytes,
    unit: 'bytes of text + toolDefinitions() JSON',
    statistic: 'one render (sizes do not vary)',
    ...(full?.value == null
      ? {}
      : { ratio: Math.round((bytes / full.value) * 1000) / 1000, baseline: full.contender }),
    note,
  };
}

/** The prompt's size rendered in full, summarized, and summarized with one server opened. */
export async function disclosure(): Promise<ResultRow[]> {
  const rows: ResultRow[] = [];
  for (const visibility of ['full', 'summary'] as const) {
    const session = new Session();
    await using section = sectionFor(session, visibility);
    await section.connect();
    const prompt = new Prompt(
      PromptTemplate.create({ ns: 'bench', key: 'disclosure', sections: [section] }),
    );
    const rendered = prompt.render({ session });
    rows.push(measure(`visibility: '${visibility}'`, rendered, rows[0]));
    if (visibility === 'summary') {
      const open = rendered.tools.find((tool) => tool.name === 'open_sections');
      if (open === undefined) throw new Error('a summarized prompt offers open_sections');
      const result = await invokeTool(
        open,
        { section_keys: [`${section.key}.server0`], reason: 'bench' },
        { session },
      );
      if (!result.success) throw new Error(result.message);
      rows.push(measure("'summary', one server opened", prompt.render({ session }), rows[0]));
    }
  }
  return rows;
}
