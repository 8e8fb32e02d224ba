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
import type { DataSensitivity } from '../../src/core/sensitivity.js';
import { ToolRetryError } from '../../src/server/errors.js';
import { nonPublicAddressOf } from './public-address.js';
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
}

/**
 * GETs `url` and returns its body as text (at most `MAX_FETCH_BYTES`),
 * following at most {@link MAX_FETCH_REDIRECTS} redirects. Each URL, the
 * redirects' included, must resolve to public addresses only
 * (`public-address.ts`) unless `allowPrivateNetwork` says otherwise.
 *
 * @throws {ToolRetryError} for a non-http(s) URL, a host that is not
 *   public or cannot be reached, too many redirects, or an HTTP error status.
 */
export async function fetchText(url: string, options: FetchTextOptions = {}): Promise<string> {
  const { signal } = options;
  let target = absoluteUrl(url);
  const timeout = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  const stop = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
  for (let redirects = 0; ; redirects++) {
    await checkReachable(target, options);
    let response: Response;
    try {
      response = await fetch(target, { signal: stop, redirect: 'manual' });
    } catch (error) {
      if (signal?.aborted === true) throw error;
      // A host that does not answer is the model's choice of URL, not the server's failure.
      const code = (error as { cause?: { code?: unknown } }).cause?.code;
      const why = timeout.aborted
        ? `no answer within ${FETCH_TIMEOUT_MS} ms`
        : typeof code === 'string'
          ? code
          : 'failed';
      throw new ToolRetryError(`${target.origin} could not be reached (${why})`, { cause: error });
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null) {
      await response.body?.cancel();
      if (redirects === MAX_FETCH_REDIRECTS) {
        throw new ToolRetryError(`${url} redirects more than ${MAX_FETCH_REDIRECTS} times`);
      }
      target = absoluteUrl(new URL(location, target).href);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new ToolRetryError(`${target.origin} answered HTTP ${response.status}`);
    }
    return readCapped(response, MAX_FETCH_BYTES);
  }
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

/** Refuses a URL whose host is not public (unless allowed), or whose name does not resolve. */
async function checkReachable(target: URL, options: FetchTextOptions): Promise<void> {
  if (options.allowPrivateNetwork === true) return;
  let address: string | undefined;
  try {
    address = await nonPublicAddressOf(target);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ToolRetryError(
      `${target.origin} could not be reached (${typeof code === 'string' ? code : 'no address'})`,
      { cause: error },
    );
  }
  if (address !== undefined) {
    throw new ToolRetryError(
      `${target.origin} is at ${address}, a loopback, private or reserved address; only public hosts can be fetched`,
    );
  }
}

/** Reads at most `maxBytes` of a body, then stops the download. */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (response.body === null) return '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size >= maxBytes) {
      await reader.cancel();
      break;
    }
  }
  const decoder = new TextDecoder();
  return decoder.decode(Buffer.concat(chunks).subarray(0, maxBytes));
}
