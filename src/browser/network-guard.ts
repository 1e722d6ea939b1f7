// Which URLs the browser may load: http(s) only, and no private, loopback or link-local address unless allowed.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { browserUrlRefused } from '../errors.js';

/** Address ranges a page on the public web has no business reaching from the gateway's host. */
const PRIVATE_RANGES = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata endpoints
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  PRIVATE_RANGES.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  PRIVATE_RANGES.addSubnet(network, prefix, 'ipv6');
}

/** `::ffff:10.0.0.1` reaches 10.0.0.1, so mapped IPv4 addresses are checked as IPv4. */
const MAPPED_IPV4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

export function isPrivateAddress(address: string): boolean {
  const mapped = MAPPED_IPV4.exec(address)?.[1];
  if (mapped !== undefined) return PRIVATE_RANGES.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE_RANGES.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export type UrlVerdict = { allowed: true; url: URL } | { allowed: false; reason: string };

/** `[::1]` in a URL's host is the address ::1. */
const hostAddress = (hostname: string) => (hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname);

/**
 * Resolves the URL's host and refuses it when any of its addresses is private (a name with one public and one
 * private address could be answered either way by the browser's own lookup).
 */
export async function checkUrl(raw: string, allowPrivateNetwork: boolean): Promise<UrlVerdict> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { allowed: false, reason: 'not an absolute URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { allowed: false, reason: `the ${url.protocol} scheme is not allowed (only http and https)` };
  if (allowPrivateNetwork) return { allowed: true, url };
  const host = hostAddress(url.hostname);
  let addresses: string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      return { allowed: false, reason: `the host ${host} does not resolve` };
    }
  }
  const blocked = addresses.find(isPrivateAddress);
  if (blocked !== undefined) {
    return { allowed: false, reason: `${host} resolves to the private address ${blocked} (set browser.allowPrivateNetwork to allow it)` };
  }
  return { allowed: true, url };
}

/** checkUrl, throwing the catalogue's refusal. */
export async function assertUrlAllowed(raw: string, allowPrivateNetwork: boolean, param = 'url'): Promise<URL> {
  const verdict = await checkUrl(raw, allowPrivateNetwork);
  if (!verdict.allowed) throw browserUrlRefused(raw, verdict.reason, param);
  return verdict.url;
}
