/** Combining the caller's signal with the one an SDK hands a tool call. */

/**
 * One signal aborted by whichever of `signals` aborts first; `dispose`
 * removes its listeners from the others (a long-lived signal must not
 * collect one listener per call).
 */
export function anySignal(signals: readonly (AbortSignal | undefined)[]): {
  signal: AbortSignal | undefined;
  dispose: () => void;
} {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (present.length <= 1) return { signal: present[0], dispose: () => undefined };
  const controller = new AbortController();
  const cleanup = new AbortController();
  for (const signal of present) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener('abort', () => controller.abort(signal.reason), {
      once: true,
      signal: cleanup.signal,
    });
  }
  return { signal: controller.signal, dispose: () => cleanup.abort() };
}
