/**
 * `mcp-sections debug --output dir`: the viewer as static files that work
 * from `file://` (no server): one HTML document per trace with its model
 * embedded, `index.html` for the default one.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  PRIVATE_DIRECTORY_MODE,
  PRIVATE_FILE_MODE,
  writeFileAtomic,
} from '../../core/atomic-file.js';
import type { TraceSource } from './trace-source.js';
import { viewerDocument } from './viewer-page.js';

/** The file a trace is exported to: its name (a file name already) and `.html`. */
function exportName(trace: string): string {
  return `${path.basename(trace)}.html`;
}

/**
 * Writes the viewer for every trace of `source` into `directory` (created
 * when missing).
 *
 * @returns the files written, `index.html` first.
 */
export async function exportTraceViewer(
  source: TraceSource,
  directory: string,
): Promise<readonly string[]> {
  const out = path.resolve(directory);
  await mkdir(out, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  const traces = await source.list();
  // Encoded as a relative path: a file named `javascript:…` stays a file, not a URL scheme.
  const links = traces.map((name) => ({ name, href: `./${encodeURIComponent(exportName(name))}` }));
  const written: string[] = [];
  for (const [index, name] of traces.entries()) {
    const { model } = await source.load(name);
    const { html } = viewerDocument(
      name,
      { mode: 'static', live: false, traces: links, current: name },
      model,
    );
    const files = index === 0 ? ['index.html', exportName(name)] : [exportName(name)];
    for (const file of files) {
      // The pages embed the traces: the owner's alone, as the trace files are
      // (written whole then renamed, so a page written before takes the new mode).
      const target = path.join(out, file);
      await writeFileAtomic(target, html, PRIVATE_FILE_MODE);
      written.push(target);
    }
  }
  return written;
}
