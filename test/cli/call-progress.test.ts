import { describe, expect, it } from 'vitest';
import { createCallProgress, formatProgress } from '../../src/cli/call-progress.js';

function stream(isTTY: boolean): { write(text: string): void; isTTY: boolean; text: () => string } {
  let text = '';
  return { isTTY, write: (chunk: string) => void (text += chunk), text: () => text };
}

describe('formatProgress', () => {
  it('draws a bar on a terminal and a plain count otherwise', () => {
    expect(formatProgress('s.t', { progress: 3, total: 4, message: 'a\nb' }, true)).toBe(
      `s.t [${'█'.repeat(15)}${'░'.repeat(5)}] 75% 3/4 a b`,
    );
    expect(formatProgress('s.t', { progress: 3, total: 4 }, false)).toBe('s.t: 3/4 (75%)');
    expect(formatProgress('s.t', { progress: 7 }, false)).toBe('s.t: 7');
  });
});

describe('createCallProgress', () => {
  it('redraws one terminal line and clears it', () => {
    const tty = stream(true);
    const shown = createCallProgress(tty, 's.t');
    shown.report({ progress: 1, total: 2 });
    shown.report({ progress: 1, total: 2 });
    shown.stop();
    shown.stop();
    expect(tty.text()).toBe(
      `\r\u001b[2Ks.t [${'█'.repeat(10)}${'░'.repeat(10)}] 50% 1/2\r\u001b[2K`,
    );
  });

  it('writes one plain line per new report, and nothing to clear', () => {
    const pipe = stream(false);
    const shown = createCallProgress(pipe, 's.t');
    shown.report({ progress: 1, total: 2 });
    shown.report({ progress: 2, total: 2, message: 'done' });
    shown.stop();
    expect(pipe.text()).toBe('s.t: 1/2 (50%)\ns.t: 2/2 (100%) done\n');
  });
});
