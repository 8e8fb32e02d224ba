/** A route listener that hears everything and does nothing, for routes made by hand in tests. */
import type { RouteListener } from '../../src/mcp/route-listener.js';

/** A {@link RouteListener} whose every report is ignored, but those `overrides` gives. */
export function quietRouteListener(overrides: Partial<RouteListener> = {}): RouteListener {
  return {
    connection: () => ({}),
    isolated: () => undefined,
    isolationFailed: () => undefined,
    isolationRecovered: () => undefined,
    networkDenied: () => undefined,
    closed: () => undefined,
    ...overrides,
  };
}
