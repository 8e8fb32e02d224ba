/**
 * Whether a URL's host is on the public internet: what a fetch tool must
 * ask before it connects, since the `connect` permission says only *when*
 * it may run. Loopback, private, link-local (a cloud's metadata address),
 * shared, multicast and reserved ranges are refused, as is an IPv4 address
 * written as IPv6.
 *
 * The name is resolved here and again by `fetch`: a name that answers
 * differently the second time (DNS rebinding) is not caught. A production
 * tool pins the address it checked (its HTTP client's `lookup` hook).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** The first address `url`'s host resolves to that is not public, or undefined when all are. */
export async function nonPublicAddressOf(url: URL): Promise<string | undefined> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(host);
  const addresses =
    family === 0 ? await lookup(host, { all: true, verbatim: true }) : [{ address: host, family }];
  for (const { address, family: version } of addresses) {
    if (NOT_PUBLIC.check(address, version === 6 ? 'ipv6' : 'ipv4')) return address;
  }
  return undefined;
}
