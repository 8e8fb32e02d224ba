/** Routes made by hand in tests, and a route listener that hears everything and does nothing. */
import { parseServerConfigs } from '../../src/config/parse-server-configs.js';
import { SecretRedactor } from '../../src/mcp/redact.js';
import type { RouteListener } from '../../src/mcp/route-listener.js';
import { ServerRoute } from '../../src/mcp/server-route.js';

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

/**
 * A route made by hand from one server's config (as a user writes it): no
 * secrets to mask, no handlers, an empty session, `listener` quiet unless
 * given. Not connected yet.
 */
export function handMadeRoute(
  server: Record<string, unknown>,
  listener: RouteListener = quietRouteListener(),
): ServerRoute {
  const [config] = parseServerConfigs([server]);
  return new ServerRoute({
    config: config!,
    redactor: new SecretRedactor([]),
    handlers: {},
    session: {},
    listener,
  });
}
