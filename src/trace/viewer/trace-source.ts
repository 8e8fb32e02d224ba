/**
 * Where the viewer gets its traces: files on disk (one trace, or the traces
 * of a directory), or records that arrive while it runs (a Redis stream).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { TraceError } from '../errors.js';
import { buildTraceModel, type TraceModel } from '../trace-model.js';
import { listTraceFiles, readTrace, type LoadedTrace } from '../trace-reader.js';
import { messageOf } from '../../core/errors.js';

/** A model and a number that changes whenever the model does. */
export interface VersionedModel {
  readonly model: TraceModel;
  readonly version: number;
}

/** What the viewer reads from. */
export interface TraceSource {
  /** True when the trace grows while the viewer runs: the page polls for a newer model. */
  readonly live: boolean;
  /** The traces to choose between, default first. */
  list(): Promise<readonly string[]>;
  /**
   * The model of trace `name` (the default one when omitted).
   * @throws TraceError `trace-read` for a name that is not in the list.
   */
  load(name?: string): Promise<VersionedModel>;
  /** Stops following a live source; idempotent. */
  close(): Promise<void>;
}

/**
 * A trace file, or a directory of them (newest first). Files are read again
 * when they change on disk.
 *
 * @throws TraceError `trace-read` when `target` is neither a file nor a directory.
 */
export async function fileTraceSource(target: string): Promise<TraceSource> {
  const resolved = path.resolve(target);
  let isDirectory: boolean;
  try {
    const info = await stat(resolved);
    if (!info.isFile() && !info.isDirectory()) throw new Error('not a file or a directory');
    isDirectory = info.isDirectory();
  } catch (error) {
    throw new TraceError(
      'trace-read',
      `${JSON.stringify(target)} is not a trace file or a directory of traces: ${messageOf(error)}`,
      { cause: error },
    );
  }
  const cache = new Map<string, { key: string; loaded: VersionedModel }>();
  const files = async (): Promise<readonly { name: string; path: string }[]> =>
    isDirectory ? listTraceFiles(resolved) : [{ name: path.basename(resolved), path: resolved }];
  return {
    live: false,
    list: async () => (await files()).map((file) => file.name),
    async load(name) {
      const all = await files();
      const file = name === undefined ? all[0] : all.find((entry) => entry.name === name);
      if (file === undefined) {
        throw new TraceError(
          'trace-read',
          name === undefined
            ? `no trace (*.jsonl) in ${JSON.stringify(target)}`
            : `no trace named ${JSON.stringify(name)} in ${JSON.stringify(target)}`,
        );
      }
      const info = await stat(file.path);
      const key = `${info.mtimeMs}:${info.size}`;
      const cached = cache.get(file.path);
      if (cached?.key === key) return cached.loaded;
      const loaded = {
        model: buildTraceModel(await readTrace(file.path)),
        version: (cached?.loaded.version ?? 0) + 1,
      };
      cache.set(file.path, { key, loaded });
      return loaded;
    },
    close: () => Promise.resolve(),
  };
}

/** A source over one trace held in memory, rebuilt when it changed. */
export function memoryTraceSource(
  current: () => LoadedTrace,
  version: () => number,
  options: { readonly live: boolean; readonly close?: () => Promise<void> },
): TraceSource {
  let built: VersionedModel | undefined;
  return {
    live: options.live,
    list: () => Promise.resolve([current().name]),
    load(name) {
      const trace = current();
      if (name !== undefined && name !== trace.name) {
        return Promise.reject(
          new TraceError(
            'trace-read',
            `no trace named ${JSON.stringify(name)}; this viewer shows ${JSON.stringify(trace.name)}`,
          ),
        );
      }
      if (built?.version !== version())
        built = { model: buildTraceModel(trace), version: version() };
      return Promise.resolve(built);
    },
    close: options.close ?? (() => Promise.resolve()),
  };
}
