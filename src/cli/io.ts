import type { ProgressStream } from './spinner.js';

/** Where the CLI reads and writes; the process's own streams in `main.ts`, buffers in tests. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: ProgressStream;
  /** Read for `call ... -` (arguments from stdin). */
  readonly stdin?: AsyncIterable<string | Uint8Array>;
  /** Variables for `${VAR}` in config files. */
  readonly env: Readonly<Record<string, string | undefined>>;
}
