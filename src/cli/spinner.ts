/**
 * Progress on stderr while connecting: an animated spinner when stderr is a
 * terminal, plain lines otherwise (logs and CI keep a readable record, and
 * no control characters reach a file).
 */

/** What the progress display writes to. */
export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/** Shows that something is under way. */
export interface Progress {
  /** Starts (or retitles) the current step. */
  start(text: string): void;
  /** Ends the current step; `text`, when given, is left as a line. */
  stop(text?: string): void;
}

/** Frames of the terminal spinner. */
export const SPINNER_FRAMES: readonly string[] = Object.freeze([
  '⠋',
  '⠙',
  '⠹',
  '⠸',
  '⠼',
  '⠴',
  '⠦',
  '⠧',
  '⠇',
  '⠏',
]);
/** Time between two frames, in milliseconds. */
export const SPINNER_INTERVAL_MS = 80;

const CLEAR_LINE = '\r\x1b[2K';

/** A progress display that writes nothing (`--quiet`). */
export const SILENT_PROGRESS: Progress = Object.freeze({
  start: () => undefined,
  stop: () => undefined,
});

/**
 * A spinner on `stream` when it is a TTY, plain lines otherwise.
 *
 * @example
 * const progress = createProgress(process.stderr);
 * progress.start('connecting to everything (stdio)');
 * await section.connect();
 * progress.stop('connected: 13 tools');
 */
export function createProgress(stream: ProgressStream): Progress {
  return stream.isTTY === true ? new Spinner(stream) : new PlainProgress(stream);
}

class PlainProgress implements Progress {
  constructor(private readonly stream: ProgressStream) {}

  start(text: string): void {
    this.stream.write(`${text}...\n`);
  }

  stop(text?: string): void {
    if (text !== undefined) this.stream.write(`${text}\n`);
  }
}

class Spinner implements Progress {
  #timer: ReturnType<typeof setInterval> | undefined;
  #frame = 0;
  #text = '';

  constructor(private readonly stream: ProgressStream) {}

  start(text: string): void {
    this.#text = text;
    this.#render();
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#render(), SPINNER_INTERVAL_MS);
      // A spinner must never keep the process alive.
      this.#timer.unref();
    }
  }

  stop(text?: string): void {
    if (this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      this.stream.write(CLEAR_LINE);
    }
    if (text !== undefined) this.stream.write(`${text}\n`);
  }

  #render(): void {
    const frame = SPINNER_FRAMES[this.#frame % SPINNER_FRAMES.length] ?? '-';
    this.#frame += 1;
    this.stream.write(`${CLEAR_LINE}${frame} ${this.#text}`);
  }
}
