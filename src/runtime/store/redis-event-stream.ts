/** The read loop of `RedisSessionStore.subscribeRemote`: XREAD BLOCK on a connection of its own. */
import type { Redis } from 'ioredis';
import { pause } from '../../core/pause.js';

/** How long one XREAD blocks, in milliseconds. */
const XREAD_BLOCK_MS = 2_000;
/** Longest pause between two failed reads, in milliseconds. */
const MAX_RESUBSCRIBE_DELAY_MS = 1_000;

/**
 * Reads the stream `key` after `lastId` until `signal` aborts, handing every
 * entry to `onEntry` in order. A failed read is retried after a growing
 * pause; a throwing `onEntry` is ignored, so one bad handler cannot end the loop.
 */
export async function followStream(
  connection: Redis,
  key: string,
  lastId: string,
  signal: AbortSignal,
  onEntry: (id: string, fields: readonly string[]) => void,
): Promise<void> {
  let after = lastId;
  let delayMs = 50;
  while (!signal.aborted) {
    let reply: Awaited<ReturnType<Redis['xread']>>;
    try {
      reply = await connection.xread('BLOCK', XREAD_BLOCK_MS, 'STREAMS', key, after);
      delayMs = 50;
    } catch {
      if (signal.aborted) break;
      await pause(delayMs, signal);
      delayMs = Math.min(delayMs * 2, MAX_RESUBSCRIBE_DELAY_MS);
      continue;
    }
    for (const [, entries] of reply ?? []) {
      for (const [id, fields] of entries) {
        after = id;
        if (signal.aborted) return;
        try {
          onEntry(id, fields);
        } catch {
          // One failing handler must not end the subscription.
        }
      }
    }
  }
}
