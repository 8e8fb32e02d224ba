/**
 * Connecting to a server that lists 100, 1,000 or 10,000 realistic tools
 * (`schema-gen.ts`: nested objects, `$defs`, enums, ~2.7 KB each):
 * `McpIntegrationSection.connect()` against the raw client's connect +
 * `listTools`, in steady state — back-to-back connect/close cycles of both,
 * interleaved, no `gc()` forced before a cycle (that would hide the
 * collection a connect causes). Every cycle gets a new server and a fresh
 * copy of the listing, parsed from JSON before the timer starts, as a real
 * transport would hand over new objects; the close of a cycle happens
 * before the next one, untimed. At 1,000 tools a reference contender adds
 * to the raw client the bare walk over every schema that any check at
 * connect needs: the floor under the section's refusal of bad schemas.
 */
import type { Tool as McpToolDescription } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpIntegrationSection } from '../src/index.js';
import { rawClient } from './contenders.js';
import {
  type Caller,
  interleave,
  isQuick,
  perCallRows,
  type InterleavePlan,
} from './interleave.js';
import { type Library, loadLibrary } from './library.js';
import { langChainAdapters } from './peers.js';
import { generateTools } from './schema-gen.js';
import { listingServer } from './servers.js';
import type { ResultRow } from './stats.js';

const RAW = 'raw Client connect + listTools';
const SECTION = 'McpIntegrationSection.connect() (dist)';
const LANGCHAIN = 'raw connect + LangChain loadMcpTools';
const FLOOR = 'raw connect + listTools + a bare walk over every schema';

/** The goal at 1,000 tools. */
const GOAL = 1.25;

/**
 * Cycles per size: fewer where one cycle takes long. The goal's size gets
 * the most: at 30 rounds its chunks spread over 0.9×–1.7× and the verdict
 * changed from run to run; at 150 they keep within a few percent.
 */
function cycles(size: number): InterleavePlan {
  const rounds = isQuick() ? 3 : size >= 10_000 ? 6 : size >= 1_000 ? 150 : 90;
  return { warmup: isQuick() || size >= 10_000 ? 1 : 5, rounds, chunk: rounds / 3 };
}

/** A contender that connects anew on every call and closes the last connection before it. */
function cycling(
  name: string,
  text: string,
  connect: (tools: McpToolDescription[]) => Promise<() => Promise<void>>,
): Caller & { done(): Promise<void> } {
  let tools: McpToolDescription[] = [];
  let close: (() => Promise<void>) | undefined;
  const finish = async (): Promise<void> => {
    const last = close;
    close = undefined;
    await last?.();
  };
  return {
    name,
    prepare: async () => {
      await finish();
      tools = JSON.parse(text) as McpToolDescription[];
    },
    call: async () => {
      close = await connect(tools);
    },
    done: finish,
  };
}

async function connectSection(
  lib: Library,
  tools: McpToolDescription[],
  expected: number,
): Promise<McpIntegrationSection> {
  const section = new lib.McpIntegrationSection({
    servers: [{ name: 'many', transport: { type: 'in-memory', server: listingServer(tools) } }],
    session: new lib.Session(),
  });
  await section.connect();
  const bridged = section.tools().length;
  if (bridged !== expected) {
    await section.disconnect();
    throw new Error(`the section bridged ${bridged} of ${expected} tools`);
  }
  return section;
}

/** Runs one size. */
async function connectSize(
  lib: Library,
  size: number,
  bridgedCount: number,
  text: string,
): Promise<ResultRow[]> {
  let raw: Client | undefined;
  const callers = [
    cycling(RAW, text, async (tools) => {
      raw = await rawClient('in-memory', listingServer(tools));
      const listed = await raw.listTools();
      if (listed.tools.length !== size) throw new Error(`listed ${listed.tools.length} of ${size}`);
      const client = raw;
      return () => client.close();
    }),
    cycling(SECTION, text, async (tools) => {
      const section = await connectSection(lib, tools, bridgedCount);
      return () => section.disconnect();
    }),
  ];
  if (size === 1_000) {
    callers.push(
      cycling(FLOOR, text, async (tools) => {
        const client = await rawClient('in-memory', listingServer(tools));
        const listed = await client.listTools();
        let values = 0;
        for (const tool of listed.tools) values += bareWalk(tool.inputSchema);
        if (values === 0) throw new Error('the walk met no value');
        return () => client.close();
      }),
    );
    const { loadMcpTools } = await langChainAdapters().catch(() => ({ loadMcpTools: undefined }));
    if (loadMcpTools !== undefined) {
      callers.push(
        cycling(LANGCHAIN, text, async (tools) => {
          const client = await rawClient('in-memory', listingServer(tools));
          await loadMcpTools('many', client);
          return () => client.close();
        }),
      );
    }
  }
  const plan = cycles(size);
  try {
    const times = await interleave(callers, plan);
    return perCallRows(`connect + list ${size.toLocaleString('en-US')} tools, in-memory`, times, {
      baseline: RAW,
      plan,
      unit: 'ms',
      ...(size === 1_000 ? { goals: { [SECTION]: GOAL } } : {}),
    }).map((row) => ({
      ...row,
      unit: 'ms/connect',
      ...(row.contender === SECTION ? { note: `${bridgedCount} of ${size} tools bridged` } : {}),
      ...(row.contender === FLOOR ? { note: FLOOR_NOTE } : {}),
    }));
  } finally {
    await Promise.allSettled(callers.map((c) => c.done()));
  }
}

const FLOOR_NOTE =
  'reference: the least work any check of every schema at connect adds (issue 13 refuses bad schemas at connect)';

/**
 * The least a check of every schema must do: read every member of every
 * object and array once, and nothing else. Returns how many values it
 * read. Recursive: on these schemas (a few levels deep) it walks about a
 * quarter faster than a loop over an explicit stack, which the library's
 * survey uses (it must bound its depth whatever a server sends, and
 * measured only 3% faster written recursively).
 */
function bareWalk(value: unknown): number {
  let values = 1;
  if (typeof value !== 'object' || value === null) return values;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) values += bareWalk(value[index]);
  } else {
    for (const key in value) values += bareWalk((value as Record<string, unknown>)[key]);
  }
  return values;
}

/** The sizes, smallest first. */
export const CONNECT_SIZES = [100, 1_000, 10_000] as const;

/** Runs the connect comparison at every size. */
export async function connectMany(): Promise<ResultRow[]> {
  const lib = await loadLibrary();
  const rows: ResultRow[] = [];
  for (const size of CONNECT_SIZES) {
    const tools = generateTools(size).map((g) => g.tool);
    const text = JSON.stringify(tools);
    // The library may refuse a schema it cannot bound; count what it bridges once, untimed.
    const probe = new lib.McpIntegrationSection({
      servers: [{ name: 'many', transport: { type: 'in-memory', server: listingServer(tools) } }],
      session: new lib.Session(),
    });
    await probe.connect();
    const bridged = probe.tools().length;
    await probe.disconnect();
    rows.push(...(await connectSize(lib, size, bridged, text)));
  }
  return rows;
}
