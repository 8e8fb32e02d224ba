/**
 * The `start` of a driver whose adapter talks to a real SDK client with a
 * scripted `fetch`: each request is recorded as the scenarios read it and
 * as the SDK sent it, and answered from the script.
 */
import type { Script, ScriptTurn, SeenRequest } from '../adapter-scenarios.js';

/** How the SDK's request reaches the script: its parsed body and fetch's signal. */
export type Answer<B> = (body: B, signal: AbortSignal | undefined) => Promise<Response>;

/**
 * `start` for an adapter made by `adapterFor` around a client that calls
 * `answer`; `seen` reads a request for the scenarios, `reply` writes the
 * provider's answer to turn `n`.
 */
export function recordingStart<B, A>(
  adapterFor: (answer: Answer<B>) => A,
  seen: (body: B, signal: AbortSignal | undefined) => SeenRequest,
  reply: (turn: ScriptTurn, n: number) => unknown,
): (script: Script) => { adapter: A; requests: SeenRequest[]; bodies: B[] } {
  return (script) => {
    const requests: SeenRequest[] = [];
    const bodies: B[] = [];
    const adapter = adapterFor(async (body, signal) => {
      const request = seen(body, signal);
      requests.push(request);
      bodies.push(body);
      return Response.json(reply(await script(request, requests.length), requests.length));
    });
    return { adapter, requests, bodies };
  };
}
