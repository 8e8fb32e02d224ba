/**
 * Is a bridged call's cost flat in what surrounds it? Per call in memory,
 * interleaved, with 10 / 1,000 / 10,000 tools in the section, with 10 /
 * 10,000 / 100,000 entries in the session's state, and with 0 / 1 / 100
 * `ToolInvoked` subscribers; each against the smallest case of its group
 * (and the raw client in the same run, for scale).
 */
import type { Session } from '../src/index.js';
import { closeAll, openBridged, openRaw, type OpenCaller } from './contenders.js';
import { interleave, perCallRows, plan } from './interleave.js';
import { type Library, loadLibrary } from './library.js';
import { listingServer, smallTools } from './servers.js';
import type { ResultRow } from './stats.js';

const RAW = 'raw SDK Client.callTool';

/** Flat: the largest case of a group costs at most this times the smallest. */
const FLAT_GOAL = 1.1;

/** One group: a label per case and how to open the bridged contender for it. */
interface Group {
  readonly comparison: string;
  readonly cases: readonly number[];
  readonly label: (n: number) => string;
  readonly open: (lib: Library, name: string, n: number) => Promise<OpenCaller>;
}

function sessionWith(lib: Library, entries: number): Session {
  const session = new lib.Session();
  const items: Record<string, { id: number; title: string; done: boolean }> = {};
  for (let i = 0; i < entries; i += 1)
    items[`item-${i}`] = { id: i, title: `item ${i}`, done: false };
  session.slice('items', { initial: items });
  return session;
}

const count = (n: number, what: string): string => `${n.toLocaleString('en-US')} ${what}`;

const GROUPS: readonly Group[] = [
  {
    comparison: 'per call by tools in the section, in-memory',
    cases: [10, 1_000, 10_000],
    label: (n) => `invokeTool (dist), ${count(n, 'tools')}`,
    open: (lib, name, n) =>
      openBridged(lib, name, 'in-memory', { server: listingServer(smallTools(n)) }),
  },
  {
    comparison: 'per call by session entries, in-memory',
    cases: [10, 10_000, 100_000],
    label: (n) => `invokeTool (dist), ${count(n, 'entries')}`,
    open: (lib, name, n) => openBridged(lib, name, 'in-memory', { session: sessionWith(lib, n) }),
  },
  {
    comparison: 'per call by ToolInvoked subscribers, in-memory',
    cases: [0, 1, 100],
    label: (n) => `invokeTool (dist), ${count(n, n === 1 ? 'subscriber' : 'subscribers')}`,
    open: (lib, name, n) => openBridged(lib, name, 'in-memory', { subscribers: n }),
  },
];

async function runGroup(lib: Library, group: Group): Promise<ResultRow[]> {
  const open: OpenCaller[] = [];
  try {
    open.push(await openRaw(RAW, 'in-memory'));
    for (const n of group.cases) open.push(await group.open(lib, group.label(n), n));
    const p = plan(1 / 2);
    const times = await interleave(open, p);
    const smallest = group.label(group.cases[0]!);
    const goals = Object.fromEntries(group.cases.slice(1).map((n) => [group.label(n), FLAT_GOAL]));
    const vsRaw = perCallRows(group.comparison, times, { baseline: RAW, plan: p });
    return perCallRows(group.comparison, times, { baseline: smallest, plan: p, goals }).map(
      (row) => {
        const raw = vsRaw.find((other) => other.contender === row.contender)?.ratio;
        return raw === undefined || row.contender === RAW
          ? row
          : { ...row, note: `${raw.toFixed(2)}× the raw client in the same run` };
      },
    );
  } finally {
    await closeAll(open);
  }
}

/** Runs every scaling group. */
export async function scaling(): Promise<ResultRow[]> {
  const lib = await loadLibrary();
  const rows: ResultRow[] = [];
  for (const group of GROUPS) rows.push(...(await runGroup(lib, group)));
  return rows;
}
