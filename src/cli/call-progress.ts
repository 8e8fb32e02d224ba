/**
 * Progress of a long `call`, as the server reports it: one line redrawn in
 * place with a bar when stderr is a terminal, one plain line per report
 * otherwise (logs keep a record, no control characters reach a file).
 * Nothing is shown for a server that sends no progress.
 */
import type { ProgressStream } from './spinner.js';
import { oneLine } from './exit-codes.js';
import { terminalLine } from './terminal-text.js';

/** One progress report (the fields of `McpToolProgress` that are shown). */
export interface ProgressReport {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** Shows a call's progress reports. */
export interface CallProgress {
  report(report: ProgressReport): void;
  /** Clears the terminal line; idempotent. */
  stop(): void;
}

/** Width of the terminal bar, in cells. */
export const PROGRESS_BAR_WIDTH = 20;

const CLEAR_LINE = '\r\x1b[2K';

/**
 * A progress display for the call of `label` (e.g. `everything.echo`).
 *
 * @example
 * const shown = createCallProgress(process.stderr, 'srv.build');
 * shown.report({ progress: 1, total: 4 }); // srv.build [█████░░░…] 25% 1/4
 * shown.stop();
 */
export function createCallProgress(stream: ProgressStream, label: string): CallProgress {
  const terminal = stream.isTTY === true;
  let drawn = false;
  let last = '';
  return {
    report(report) {
      const text = formatProgress(label, report, terminal);
      if (text === last) return;
      last = text;
      if (terminal) {
        stream.write(`${CLEAR_LINE}${text}`);
        drawn = true;
      } else {
        stream.write(`${text}\n`);
      }
    },
    stop() {
      if (drawn) stream.write(CLEAR_LINE);
      drawn = false;
    },
  };
}

/**
 * One report as text: with a bar on a terminal
 * (`srv.build [██████░░░░] 60% 3/5 compiling`), without one otherwise
 * (`srv.build: 3/5 (60%) compiling`). Without a total, the count alone.
 * Control characters in the label or the message show as escapes.
 */
export function formatProgress(label: string, report: ProgressReport, terminal: boolean): string {
  // The server's message, and the tool name as typed, are made safe for a terminal.
  return terminalLine(layout(label, report, terminal));
}

function layout(label: string, report: ProgressReport, terminal: boolean): string {
  const message = report.message === undefined ? '' : ` ${oneLine(report.message)}`;
  const { progress, total } = report;
  if (total === undefined || !(total > 0)) {
    return `${label}${terminal ? '' : ':'} ${progress}${message}`;
  }
  const ratio = Math.min(1, Math.max(0, progress / total));
  const percent = `${Math.floor(ratio * 100)}%`;
  if (!terminal) return `${label}: ${progress}/${total} (${percent})${message}`;
  const filled = Math.round(ratio * PROGRESS_BAR_WIDTH);
  const bar = '█'.repeat(filled) + '░'.repeat(PROGRESS_BAR_WIDTH - filled);
  return `${label} [${bar}] ${percent} ${progress}/${total}${message}`;
}
