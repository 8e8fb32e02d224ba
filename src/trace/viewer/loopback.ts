/** The viewer listens on loopback only: these are the hosts it accepts. */
import { isIP } from 'node:net';
import { TraceError } from '../errors.js';

/** Default host of the viewer. */
export const DEFAULT_VIEWER_HOST = '127.0.0.1';

/**
 * The address to bind for `host`: `localhost` and any 127.0.0.0/8 address
 * bind IPv4 loopback, `::1` (or `[::1]`) IPv6 loopback.
 *
 * @throws TraceError `trace-options` for any other host, naming it.
 */
export function loopbackAddress(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === 'localhost') return DEFAULT_VIEWER_HOST;
  if (isIP(bare) === 4 && /^127\./.test(bare)) return bare;
  if (isIP(bare) === 6 && isIpv6Loopback(bare)) return '::1';
  throw new TraceError(
    'trace-options',
    `host ${JSON.stringify(host)} is not a loopback address: the viewer binds 127.0.0.1, ::1 or localhost only, so that no other machine can read the trace`,
  );
}

function isIpv6Loopback(address: string): boolean {
  const lower = address.toLowerCase();
  return lower === '::1' || /^0{0,4}(:0{0,4}){6}:0{0,3}1$/.test(lower);
}
