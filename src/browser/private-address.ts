// Which IP addresses a page on the public web has no business reaching from the gateway's host: private, loopback,
// link-local, special-purpose and documentation ranges, and IPv6 forms that carry one of those IPv4 addresses inside.
import { BlockList, isIP } from 'node:net';

const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata endpoints
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments (RFC 6890)
  ['192.0.2.0', 24], // documentation, TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated, RFC 7526)
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking (RFC 2544)
  ['198.51.100.0', 24], // documentation, TEST-NET-2
  ['203.0.113.0', 24], // documentation, TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible form ::a.b.c.d
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT)
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translated by a gateway of this network
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments, Teredo among them
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // segment routing SIDs (RFC 9602)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address, or undefined when it is not one (a zone id, say). */
function ipv6Groups(address: string): number[] | undefined {
  let canonical: string;
  try {
    // The URL parser writes any IPv6 form (dotted tail included) as compressed hex groups.
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const [head = '', tail] = canonical.split('::');
  if (tail === undefined) return parse(head);
  const front = parse(head);
  const back = parse(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const dottedQuad = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/**
 * The IPv4 address an IPv6 address reaches through a translation mechanism: IPv4-mapped `::ffff:a.b.c.d`, NAT64
 * `64:ff9b::a.b.c.d` (RFC 6052) and 6to4 `2002:aabb:ccdd::/48` (RFC 3056). A public one stays usable (a host behind
 * DNS64 reaches every IPv4 site this way); a private one is refused like the IPv4 address itself.
 */
export function embeddedIpv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  if (groups?.length !== 8) return undefined;
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return dottedQuad(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return dottedQuad(g6, g7);
  if (g0 === 0x2002) return dottedQuad(g1, g2);
  return undefined;
}

/** Whether the browser must not connect to `address`; anything that is not a plain IP address counts as private. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  // A zone id (fe80::1%eth0) only ever names a link-local address.
  if (family !== 6 || address.includes('%')) return true;
  if (BLOCKED.check(address, 'ipv6')) return true;
  const inner = embeddedIpv4(address);
  return inner !== undefined && BLOCKED.check(inner, 'ipv4');
}
