/**
 * Comparison 3: turning 1,000 realistic tool schemas into validators —
 * cold, from the cache, and at first use — beside the same step in
 * LangChain's adapters; then connecting a section to a server that lists
 * them, against the raw client's connect + `listTools`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool as McpToolDescription } from '@modelcontextprotocol/sdk/types.js';
import { McpIntegrationSection, Session } from '../src/index.js';
import {
  clearSchemaCache,
  createInputValidator,
  type InputValidator,
  schemaCacheStats,
} from '../src/mcp/schema/index.js';
import { langChainAdapters, type ListingClient } from './peers.js';
import { averageSchemaBytes, generateTools, type GeneratedTool } from './schema-gen.js';
import { listingServer } from './servers.js';
import { alternate, type Contender, cpuRatio, median, type ResultRow, round } from './stats.js';

const TOOL_COUNT = 1_000;
const CONVERSION_ROUNDS = 5;
const CONNECT_ROUNDS = 9;

/** A cached conversion "costs nothing measurable" when it is below this share of a cold one. */
const CACHED_SHARE_GOAL = 0.05;
const CONNECT_GOAL = 1.5;

const OURS_COLD = 'createInputValidator ×1,000, cold (clearSchemaCache)';
const OURS_CACHED = 'createInputValidator ×1,000, cached';
const OURS_FIRST_USE = 'first safeParse of each (deferred zod build)';
const LANGCHAIN_LOAD = '@langchain/mcp-adapters loadMcpTools (schema step)';

const RAW_CONNECT = 'raw Client connect + listTools';
const SECTION_CONNECT = 'McpIntegrationSection.connect()';
const LANGCHAIN_CONNECT = 'raw connect + LangChain loadMcpTools';

type LoadMcpTools = (name: string, client: ListingClient) => Promise<unknown[]>;

async function langChainLoader(): Promise<LoadMcpTools> {
  const { loadMcpTools } = await langChainAdapters();
  return loadMcpTools;
}

function copies(generated: readonly GeneratedTool[]): McpToolDescription[] {
  return generated.map(({ tool }) => structuredClone(tool));
}

export async function conversion(generated: readonly GeneratedTool[]): Promise<ResultRow[]> {
  const loadMcpTools = await langChainLoader();
  const ids = { serverName: 'bench', toolName: 'tool' };
  let validators: InputValidator[] = [];
  let fresh: McpToolDescription[] = [];
  let langChainInput: McpToolDescription[] = [];

  const convertAll = (tools: readonly McpToolDescription[]): InputValidator[] =>
    tools.map((tool) => createInputValidator(tool.inputSchema, ids));
  const parseAll = (): void => {
    generated.forEach(({ validArguments }, i) => {
      if (!validators[i]!.safeParse(validArguments).success) {
        throw new Error(`tool ${i}: its valid arguments were refused`);
      }
    });
  };

  // Each block is one pass over the 1,000 schemas; set-up is untimed.
  const contenders: Contender[] = [
    {
      name: OURS_COLD,
      prepare: () => {
        clearSchemaCache();
        fresh = copies(generated);
      },
      run: () => {
        validators = convertAll(fresh);
        return Promise.resolve();
      },
    },
    {
      name: OURS_CACHED,
      prepare: () => {
        clearSchemaCache();
        convertAll(copies(generated));
        fresh = copies(generated);
      },
      run: () => {
        validators = convertAll(fresh);
        return Promise.resolve();
      },
    },
    {
      name: OURS_FIRST_USE,
      prepare: () => {
        clearSchemaCache();
        validators = convertAll(copies(generated));
      },
      run: () => {
        parseAll();
        return Promise.resolve();
      },
    },
    {
      name: LANGCHAIN_LOAD,
      prepare: () => {
        langChainInput = copies(generated);
      },
      run: async () => {
        const tools = await loadMcpTools('bench', {
          listTools: () => Promise.resolve({ tools: langChainInput }),
        });
        if (tools.length !== TOOL_COUNT) throw new Error(`LangChain loaded ${tools.length} tools`);
      },
    },
  ];
  const times = await alternate(contenders, { rounds: CONVERSION_ROUNDS, block: 1, warmup: 1 });
  clearSchemaCache();
  convertAll(copies(generated));
  const stats = schemaCacheStats();

  const cold = times.get(OURS_COLD)!;
  const lang = times.get(LANGCHAIN_LOAD)!;
  const rows: ResultRow[] = [];
  for (const [contender, values] of times) {
    const ms = median(values);
    const row: ResultRow = {
      comparison: 'schemas ×1,000',
      contender,
      median: round(ms, 2),
      unit: 'ms/1,000',
      ...(contender === LANGCHAIN_LOAD
        ? {}
        : {
            ratio: round(median(values.map((v, i) => v / lang[i]!)), 3),
            baseline: LANGCHAIN_LOAD,
            cpuRatio: round(cpuRatio(times, contender, LANGCHAIN_LOAD), 3),
          }),
    };
    if (contender === OURS_CACHED) {
      const share = median(values.map((v, i) => v / cold[i]!));
      // Judged against our own cold conversion, not against LangChain.
      rows.push({
        ...row,
        ratio: round(share, 3),
        baseline: OURS_COLD,
        cpuRatio: round(cpuRatio(times, contender, OURS_COLD), 3),
        goal: `≤ ${CACHED_SHARE_GOAL.toFixed(2)}× cold`,
        met: share <= CACHED_SHARE_GOAL,
        note: `vs cold; ${round(median(values.map((v, i) => v / lang[i]!)), 2)}× the LangChain step; ${round((ms / TOOL_COUNT) * 1_000, 1)} µs a schema (canonical JSON + SHA-256 of the text)`,
      });
    } else if (contender === OURS_COLD) {
      rows.push({
        ...row,
        note: `analysis and validator build (${stats.misses} schemas)`,
      });
    } else if (contender === LANGCHAIN_LOAD) {
      rows.push({
        ...row,
        note: 'dereference + simplify + DynamicStructuredTool per tool; validates at call time',
      });
    } else {
      rows.push(row);
    }
  }
  return rows;
}

export async function connect(generated: readonly GeneratedTool[]): Promise<ResultRow[]> {
  const loadMcpTools = await langChainLoader();
  let tools: McpToolDescription[] = [];
  const open: (() => Promise<void>)[] = [];
  const closeAll = async (): Promise<void> => {
    await Promise.all(open.splice(0).map((close) => close()));
  };
  const connectRaw = async (): Promise<Client> => {
    const client = new Client({ name: 'bench', version: '1.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await listingServer(tools).connect(serverSide);
    await client.connect(clientSide);
    open.push(() => client.close());
    return client;
  };
  // Every block gets a fresh server and its own copy of the list.
  const prepare = async (): Promise<void> => {
    await closeAll();
    tools = copies(generated);
  };
  const contenders: Contender[] = [
    {
      name: RAW_CONNECT,
      prepare,
      run: async () => {
        const client = await connectRaw();
        const listed = await client.listTools();
        if (listed.tools.length !== TOOL_COUNT) throw new Error('raw client listed too few');
      },
    },
    {
      name: SECTION_CONNECT,
      prepare,
      run: async () => {
        const section = new McpIntegrationSection({
          servers: [
            { name: 'many', transport: { type: 'in-memory', server: listingServer(tools) } },
          ],
          session: new Session(),
        });
        open.push(() => section.disconnect());
        await section.connect();
        if (section.tools().length !== TOOL_COUNT) throw new Error('section bridged too few');
      },
    },
    {
      name: LANGCHAIN_CONNECT,
      prepare,
      run: async () => {
        const client = await connectRaw();
        const loaded = await loadMcpTools('many', client);
        if (loaded.length !== TOOL_COUNT) throw new Error('LangChain loaded too few');
      },
    },
  ];
  try {
    const times = await alternate(contenders, { rounds: CONNECT_ROUNDS, block: 1, warmup: 2 });
    const raw = times.get(RAW_CONNECT)!;
    return [...times].map(([contender, values]): ResultRow => {
      const row: ResultRow = {
        comparison: 'connect, 1,000 tools (in-memory)',
        contender,
        median: round(median(values), 2),
        unit: 'ms',
      };
      if (contender === RAW_CONNECT) return row;
      const r = values.map((v, i) => v / raw[i]!);
      const ratio = median(r);
      return {
        ...row,
        ratio: round(ratio, 3),
        baseline: RAW_CONNECT,
        ratioRange: [round(Math.min(...r), 3), round(Math.max(...r), 3)],
        cpuRatio: round(cpuRatio(times, contender, RAW_CONNECT), 3),
        ...(contender === SECTION_CONNECT
          ? { goal: `≤ ${CONNECT_GOAL.toFixed(2)}×`, met: ratio <= CONNECT_GOAL }
          : {}),
      };
    });
  } finally {
    await closeAll();
  }
}

/** Runs comparison 3. */
export async function schemas(): Promise<ResultRow[]> {
  const generated = generateTools(TOOL_COUNT);
  const bytes = averageSchemaBytes(generated);
  const rows = [...(await conversion(generated)), ...(await connect(generated))];
  return [
    {
      comparison: 'schemas ×1,000',
      contender: 'generated set (seeded)',
      median: round(bytes / 1024, 2),
      unit: 'KB/schema',
      note: `${TOOL_COUNT} tools, ${round((bytes * TOOL_COUNT) / 1024 / 1024, 2)} MB of input schemas`,
    },
    ...rows,
  ];
}
