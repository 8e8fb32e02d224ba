/**
 * The in-memory `echo` call with the library alone in the process: the raw
 * client, a second raw client (the noise floor), the bridged call (dist)
 * and a second one (each side's code twice a round), interleaved call by
 * call, with no peer loaded. In the per-call
 * comparison the peers' code runs between two calls of the library, and
 * LangChain runs every call in an `AsyncLocalStorage`, which on Node 20
 * makes every promise of the process dearer (the raw client's too); here
 * neither happens, as in an application that uses only this library.
 * Reported, no goal: the goal row is the comparison with the peers.
 */
import { closeAll, openAll, openBridged, openRaw } from './contenders.js';
import { interleave, perCallRows, plan } from './interleave.js';
import { loadLibrary } from './library.js';
import { BRIDGED, BRIDGED_CONTROL, RAW } from './per-call.js';
import type { ResultRow } from './stats.js';

const CONTROL = 'raw SDK (control, 2nd server)';

/** Runs the comparison. */
export async function perCallAlone(): Promise<ResultRow[]> {
  const dist = await loadLibrary('dist');
  const { open } = await openAll([
    [RAW, () => openRaw(RAW, 'in-memory')],
    [CONTROL, () => openRaw(CONTROL, 'in-memory')],
    [BRIDGED, () => openBridged(dist, BRIDGED, 'in-memory')],
    [BRIDGED_CONTROL, () => openBridged(dist, BRIDGED_CONTROL, 'in-memory')],
  ]);
  const p = plan();
  let times;
  try {
    times = await interleave(open, p);
  } finally {
    await closeAll(open);
  }
  return perCallRows('per call, in-memory, the library alone in the process', times, {
    baseline: RAW,
    plan: p,
    unit: 'µs',
    notes: {
      [CONTROL]: 'noise floor: the same raw client on a second server',
      [BRIDGED]: 'no peer loaded: no other code between calls, no AsyncLocalStorage of theirs',
      [BRIDGED_CONTROL]: 'the same bridged tool on a second server',
    },
  });
}
