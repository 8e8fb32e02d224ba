/**
 * Data access of the template server: files in the caller's workspace,
 * sample records, sample sensitive datasets and plain HTTP fetches.
 *
 * A connector knows nothing of MCP: no SDK import, no permissions, no
 * result sizing. The tools in `tools.ts` wrap these functions and add those.
 * Paths are agent paths (`/workspace/...`), read and written with the
 * toolkit's `readWorkspaceFile` / `writeWorkspaceFile`, which keep every
 * session in its own directory.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { DataSensitivity } from '../../src/core/sensitivity.js';
import { ToolRetryError } from '../../src/server/errors.js';
import {
  isNonPublicAddress,
  NonPublicAddressError,
  publicLookup,
  type ResolveAll,
} from './public-address.js';
import {
  readWorkspaceFile as readFileInWorkspace,
  writeWorkspaceFile as writeFileInWorkspace,
} from '../../src/server/workspace-file.js';

/** Largest file `readWorkspaceFile` reads. */
export const MAX_READ_BYTES = 10 * 1024 * 1024;
/** Largest response body `fetchText` keeps. */
export const MAX_FETCH_BYTES = 1024 * 1024;
/** How long `fetchText` waits. */
export const FETCH_TIMEOUT_MS = 10_000;

/**
 * Reads a UTF-8 file of the caller's workspace, through descriptors: a
 * directory the agent swaps for a symlink mid-read cannot redirect it, and
 * a FIFO or device is refused without blocking.
 *
 * @throws {WorkspacePathError} for a path outside the workspace, nothing
 *   there, something other than a file, or a file too large; the model
 *   is told why and may try another path.
 */
export async function readWorkspaceFile(
  workspacePath: string,
  signal?: AbortSignal,
): Promise<string> {
  return readFileInWorkspace(workspacePath, {
    maxBytes: MAX_READ_BYTES,
    ...(signal === undefined ? {} : { signal }),
  });
}

/**
 * Writes a UTF-8 file in the caller's workspace, creating its directories,
 * through descriptors as {@link readWorkspaceFile} reads.
 *
 * @returns The number of characters written.
 * @throws {WorkspacePathError} for a path outside the workspace or one
 *   naming something other than a file.
 */
export async function writeWorkspaceFile(
  workspacePath: string,
  content: string,
  signal?: AbortSignal,
): Promise<number> {
  await writeFileInWorkspace(workspacePath, content, signal === undefined ? {} : { signal });
  return content.length;
}

/** One record of the public sample catalogue. */
export interface CatalogueRecord {
  readonly id: number;
  readonly name: string;
  readonly category: string;
  readonly city: string;
}

const CATEGORIES = ['hardware', 'software', 'service', 'training'] as const;
const CITIES = ['Lisbon', 'Oslo', 'Nairobi', 'Lima', 'Osaka', 'Tunis'] as const;

/** 500 made-up, public records: enough for a result that needs `contextResult`. */
const CATALOGUE: readonly CatalogueRecord[] = Object.freeze(
  Array.from({ length: 500 }, (_, i) =>
    Object.freeze({
      id: i + 1,
      name: `item-${String(i + 1).padStart(3, '0')}`,
      category: CATEGORIES[i % CATEGORIES.length] ?? 'hardware',
      city: CITIES[i % CITIES.length] ?? 'Lisbon',
    }),
  ),
);

/** Records whose name, category or city contains `query` (case-insensitive). */
export function searchCatalogue(query: string): readonly CatalogueRecord[] {
  const needle = query.trim().toLowerCase();
  return CATALOGUE.filter((record) =>
    [record.name, record.category, record.city].some((field) =>
      field.toLowerCase().includes(needle),
    ),
  );
}

/** A sensitive sample dataset and its level. */
export interface SensitiveDataset {
  readonly name: string;
  readonly sensitivity: DataSensitivity;
  readonly rows: readonly Readonly<Record<string, string | number>>[];
}

const DATASETS: Readonly<Record<string, SensitiveDataset>> = Object.freeze({
  patient_records: {
    name: 'patient_records',
    sensitivity: 'confidential',
    rows: [
      { patient: 'P-001', age: 54, diagnosis: 'hypertension' },
      { patient: 'P-002', age: 31, diagnosis: 'asthma' },
      { patient: 'P-003', age: 67, diagnosis: 'type 2 diabetes' },
    ],
  },
  salary_bands: {
    name: 'salary_bands',
    sensitivity: 'secret',
    rows: [
      { band: 'L1', min: 42000, max: 55000 },
      { band: 'L2', min: 55000, max: 71000 },
    ],
  },
});

/**
 * Loads a sample sensitive dataset (all data is made up).
 *
 * @throws {ToolRetryError} for an unknown name, listing the known ones.
 */
export function loadDataset(name: string): SensitiveDataset {
  const dataset = Object.hasOwn(DATASETS, name) ? DATASETS[name] : undefined;
  if (dataset === undefined) {
    throw new ToolRetryError(
      `no dataset named ${JSON.stringify(name)}; known: ${Object.keys(DATASETS).join(', ')}`,
    );
  }
  return dataset;
}

/** Redirects `fetchText` follows, each checked as the first URL. */
export const MAX_FETCH_REDIRECTS = 5;

/** Options of {@link fetchText}. */
export interface FetchTextOptions {
  readonly signal?: AbortSignal;
  /**
   * Let it reach loopback, private and link-local addresses (a test's
   * local server, an intranet tool on purpose). @default false
   */
  readonly allowPrivateNetwork?: boolean;
  /** How host names are resolved (a test's stand-in for DNS). @default dns.lookup */
  readonly resolve?: ResolveAll;
}

/**
 * GETs `url` and returns its body as text (at most `MAX_FETCH_BYTES`),
 * following at most {@link MAX_FETCH_REDIRECTS} redirects. Unless
 * `allowPrivateNetwork` says otherwise, every connection, the redirects'
 * included, goes to public addresses only: a host name is checked in the
 * lookup the connection itself makes (`public-address.ts`), so the address
 * checked is the address connected to.
 *
 * @throws {ToolRetryError} for a non-http(s) URL, a host that is not
 *   public or cannot be reached, too many redirects, or an HTTP error status.
 */
export async function fetchText(url: string, options: FetchTextOptions = {}): Promise<string> {
  const { signal } = options;
  let target = absoluteUrl(url);
  const timeout = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  const stop = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
  const lookup = options.allowPrivateNetwork === true ? undefined : publicLookup(options.resolve);
  for (let redirects = 0; ; redirects++) {
    if (lookup !== undefined) refuseNonPublicLiteral(target);
    let response: IncomingMessage;
    try {
      response = await get(target, stop, lookup);
    } catch (error) {
      if (signal?.aborted === true) throw error;
      throw unreachable(target, error, timeout.aborted);
    }
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location !== undefined) {
      response.destroy();
      if (redirects === MAX_FETCH_REDIRECTS) {
        throw new ToolRetryError(`${url} redirects more than ${MAX_FETCH_REDIRECTS} times`);
      }
      target = absoluteUrl(new URL(location, target).href);
      continue;
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      throw new ToolRetryError(`${target.origin} answered HTTP ${status}`);
    }
    return readCapped(response, MAX_FETCH_BYTES);
  }
}

/** What each GET says of itself: a plain text or JSON answer, not compressed. */
const REQUEST_HEADERS = {
  'user-agent': 'mcp-sections-template/1.0',
  accept: 'text/*, application/json;q=0.9, */*;q=0.5',
  'accept-encoding': 'identity',
};

/** One GET of `target`, resolved with its response's head. */
function get(
  target: URL,
  signal: AbortSignal,
  lookup: LookupFunction | undefined,
): Promise<IncomingMessage> {
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(target, {
      signal,
      headers: REQUEST_HEADERS,
      ...(lookup === undefined ? {} : { lookup }),
    });
    request.once('response', resolve);
    request.once('error', reject);
    // A `101 Switching Protocols` (or any end without an answer) emits neither: without
    // this, the call would wait for ever, past its timeout and its cancellation.
    request.once('upgrade', (_answer, socket) => {
      socket.destroy();
      reject(Object.assign(new Error('the host switched protocols'), { code: 'EPROTO' }));
    });
    request.once('close', () =>
      reject(
        Object.assign(new Error('the connection closed without an answer'), { code: 'ECONNRESET' }),
      ),
    );
  });
}

/** The agent's error for a GET that failed before its answer: why, never the server's fault. */
function unreachable(target: URL, error: unknown, timedOut: boolean): ToolRetryError {
  if (error instanceof NonPublicAddressError) return notPublic(target, error.address);
  // A host that does not answer is the model's choice of URL, not the server's failure.
  const code = (error as { code?: unknown }).code;
  const why = timedOut
    ? `no answer within ${FETCH_TIMEOUT_MS} ms`
    : typeof code === 'string'
      ? code
      : 'failed';
  return new ToolRetryError(`${target.origin} could not be reached (${why})`, { cause: error });
}

/** An IP written in the URL is connected to without a lookup: it is checked here. */
function refuseNonPublicLiteral(target: URL): void {
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0 && isNonPublicAddress(host)) throw notPublic(target, host);
}

function notPublic(target: URL, address: string): ToolRetryError {
  return new ToolRetryError(
    `${target.origin} is at ${address}, a loopback, private or reserved address; only public hosts can be fetched`,
  );
}

/** `url` parsed, when it is an absolute http(s) URL. */
function absoluteUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ToolRetryError(
      `${JSON.stringify(url)} is not an absolute URL such as https://example.com/`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ToolRetryError(`only http: and https: URLs can be fetched, got ${parsed.protocol}`);
  }
  return parsed;
}

/** Reads at most `maxBytes` of a body, then stops the download. */
async function readCapped(response: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxBytes) break; // leaving the loop destroys the response
    }
  } catch (error) {
    // A body cut off (the timeout, a reset) is the host's doing: the model may try again.
    throw new ToolRetryError(`the answer of ${response.url ?? 'the host'} broke off`, {
      cause: error,
    });
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, maxBytes));
}
