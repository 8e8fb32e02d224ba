/**
 * Whether a host is on the public internet: what a fetch tool must ask
 * before it connects, since the `connect` permission says only *when* it
 * may run. Loopback, private, link-local (a cloud's metadata address),
 * shared, documentation, multicast and reserved ranges are refused, as is
 * an IPv6 address that embeds or routes to an IPv4 one (mapped,
 * compatible, NAT64, 6to4, SIIT).
 *
 * A name is checked in the lookup the connection itself uses
 * ({@link publicLookup}, given to `http.request` as its `lookup`): the
 * addresses checked are the ones connected to, so a name that answers
 * differently from one lookup to the next (DNS rebinding) cannot slip a
 * private address past the check.
 */
import { lookup as systemLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

// Two lists: Node's BlockList matches an IPv4 address against IPv6 rules
// too (as its mapped form), so one list holding `::ffff:0:0/96` would
// refuse every IPv4 address.
const NOT_PUBLIC_V4 = new BlockList();
const NOT_PUBLIC_V6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC_V4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible addresses
  ['::ffff:0:0', 96],
  ['::ffff:0:0:0', 96], // SIIT
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48], // local-use NAT64
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4: any IPv4 address behind it
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10], // site-local
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC_V6.addSubnet(network, prefix, 'ipv6');
}

/** Whether `address` (an IPv4 or IPv6 literal) is outside the public internet. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) throw new TypeError(`not an IP address: ${JSON.stringify(address)}`);
  return family === 6 ? NOT_PUBLIC_V6.check(address, 'ipv6') : NOT_PUBLIC_V4.check(address, 'ipv4');
}

/** A lookup that found an address outside the public internet; the connection is not made. */
export class NonPublicAddressError extends Error {
  override readonly name = 'NonPublicAddressError';
  readonly code = 'ENONPUBLIC';
  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(`${hostname} is at ${address}, a loopback, private or reserved address`);
  }
}

/** How names are resolved: `dns.lookup`'s signature, with every address asked for. */
export type ResolveAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for `http.request` and `net.connect` that answers only when
 * every address the name resolves to is public, and fails the connection
 * with a {@link NonPublicAddressError} otherwise. `resolve` is
 * `dns.lookup` unless a test gives another.
 *
 * The connection does not call a lookup for an IP literal: check those
 * with {@link isNonPublicAddress} before connecting.
 */
export function publicLookup(resolve: ResolveAll = systemLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) return callback(error, '', undefined);
      if (addresses.length === 0) {
        return callback(
          Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }),
          '',
          undefined,
        );
      }
      const refused = addresses.find(({ address }) => isNonPublicAddress(address));
      if (refused !== undefined) {
        return callback(new NonPublicAddressError(hostname, refused.address), '', undefined);
      }
      if (options.all === true) return (callback as AllCallback)(null, addresses);
      const [first] = addresses as [LookupAddress];
      return callback(null, first.address, first.family);
    });
  };
}

/** `lookup`'s callback when it was asked for every address. */
type AllCallback = (error: null, addresses: LookupAddress[]) => void;
