import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProgress, SPINNER_FRAMES, SPINNER_INTERVAL_MS } from '../../src/cli/spinner.js';

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, isTTY, write: (text: string) => writes.push(text) };
}

describe('createProgress', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('animates a spinner on a TTY and clears it when done', () => {
    vi.useFakeTimers();
    const tty = stream(true);
    const progress = createProgress(tty);
    progress.start('connecting to everything (stdio)');
    expect(tty.writes).toEqual([`\r\x1b[2K${SPINNER_FRAMES[0]} connecting to everything (stdio)`]);
    vi.advanceTimersByTime(SPINNER_INTERVAL_MS * 2);
    expect(tty.writes.slice(1)).toEqual([
      `\r\x1b[2K${SPINNER_FRAMES[1]} connecting to everything (stdio)`,
      `\r\x1b[2K${SPINNER_FRAMES[2]} connecting to everything (stdio)`,
    ]);
    progress.stop('connected');
    expect(tty.writes.slice(3)).toEqual(['\r\x1b[2K', 'connected\n']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('writes plain lines when stderr is not a terminal', () => {
    vi.useFakeTimers();
    const pipe = stream(false);
    const progress = createProgress(pipe);
    progress.start('connecting to everything (stdio)');
    vi.advanceTimersByTime(SPINNER_INTERVAL_MS * 5);
    progress.stop();
    expect(pipe.writes).toEqual(['connecting to everything (stdio)...\n']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
