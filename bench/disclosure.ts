/**
 * What progressive disclosure saves: the prompt text plus the JSON of
 * `toolDefinitions()` (what a request to an LLM API carries) for 10
 * in-process MCP servers of 30 tools each, rendered in full, summarized,
 * and summarized with one server opened. Tokens are approximate: characters
 * divided by 4, the usual rule of thumb for English and JSON; no tokenizer
 * is involved.
 *
 * Run with `npx tsx bench/disclosure.ts`; the figures go to
 * bench/disclosure.json.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
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

const SERVERS = 10;
const TOOLS_PER_SERVER = 30;
/** Characters per token, for the approximate token counts. */
const CHARS_PER_TOKEN = 4;

interface Figures {
  readonly variant: string;
  readonly tools: number;
  readonly textBytes: number;
  readonly definitionsBytes: number;
  readonly totalBytes: number;
  /** (text + definitions characters) / 4. */
  readonly approxTokens: number;
}

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

function measure(variant: string, rendered: RenderedPrompt): Figures {
  const definitions = JSON.stringify(rendered.toolDefinitions());
  const textBytes = Buffer.byteLength(rendered.text);
  const definitionsBytes = Buffer.byteLength(definitions);
  return {
    variant,
    tools: rendered.tools.length,
    textBytes,
    definitionsBytes,
    totalBytes: textBytes + definitionsBytes,
    approxTokens: Math.round((rendered.text.length + definitions.length) / CHARS_PER_TOKEN),
  };
}

async function main(): Promise<void> {
  const rows: Figures[] = [];
  for (const visibility of ['full', 'summary'] as const) {
    const session = new Session();
    await using section = sectionFor(session, visibility);
    await section.connect();
    const prompt = new Prompt(
      PromptTemplate.create({ ns: 'bench', key: 'disclosure', sections: [section] }),
    );
    const rendered = prompt.render({ session });
    rows.push(measure(visibility === 'full' ? 'full' : 'summary', rendered));
    if (visibility === 'summary') {
      const open = rendered.tools.find((tool) => tool.name === 'open_sections');
      if (open === undefined) throw new Error('a summarized prompt offers open_sections');
      const result = await invokeTool(
        open,
        { section_keys: [`${section.key}.server0`], reason: 'bench' },
        { session },
      );
      if (!result.success) throw new Error(result.message);
      rows.push(measure('summary, one server opened', prompt.render({ session })));
    }
  }
  const full = rows[0]!;
  const table = rows.map((row) => ({
    ...row,
    ofFull: `${((100 * row.totalBytes) / full.totalBytes).toFixed(1)}%`,
  }));
  console.log(
    `${SERVERS} servers × ${TOOLS_PER_SERVER} tools; tokens ≈ characters / ${CHARS_PER_TOKEN}`,
  );
  console.table(table);
  const out = fileURLToPath(new URL('./disclosure.json', import.meta.url));
  await writeFile(
    out,
    `${JSON.stringify(
      {
        servers: SERVERS,
        toolsPerServer: TOOLS_PER_SERVER,
        tokens: `approximate: (text + JSON of toolDefinitions()) characters / ${CHARS_PER_TOKEN}`,
        rows: table,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`written to ${out}`);
}

await main();
