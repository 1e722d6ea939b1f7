// Which URLs and hosts the browser may reach: http(s) only, and no host with a private address (private-address.ts)
// unless browser.allowPrivateNetwork. The egress proxy applies it to every connection; browser.navigate and
// browser.open apply it first to refuse a URL before a browser is started for it.
import { lookup } from 'node:dns/promises';
import { connect, isIP, type Socket } from 'node:net';
import { browserUrlRefused } from '../errors.js';
import { isPrivateAddress } from './private-address.js';

/** How the browser's traffic resolves names and opens connections; tests map names to local servers. */
export interface EgressNetwork {
  /** Every address `host` resolves to. */
  lookup(host: string): Promise<string[]>;
  /** A TCP connection to an address that was checked. */
  connect(address: string, port: number): Socket;
}

export const systemNetwork: EgressNetwork = {
  lookup: async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address),
  connect: (address, port) => connect({ host: address, port }),
};

export type HostVerdict = { allowed: true; addresses: string[] } | { allowed: false; reason: string };

/** `[::1]` in a URL's host is the address ::1. */
export const hostAddress = (hostname: string) =>
  hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;

/**
 * Resolves `host` once and refuses it when any of its addresses is private (a name with one public and one private
 * address could be answered either way). An allowed host is only ever connected to at the addresses returned.
 */
export async function resolveHost(
  host: string,
  allowPrivateNetwork: boolean,
  network: EgressNetwork,
): Promise<HostVerdict> {
  let addresses: string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      addresses = await network.lookup(host);
    } catch {
      return { allowed: false, reason: `the host ${host} does not resolve` };
    }
    if (addresses.length === 0) return { allowed: false, reason: `the host ${host} does not resolve` };
  }
  if (!allowPrivateNetwork) {
    const blocked = addresses.find(isPrivateAddress);
    if (blocked !== undefined) {
      return {
        allowed: false,
        reason: `${host} resolves to the private address ${blocked} (set browser.allowPrivateNetwork to allow it)`,
      };
    }
  }
  return { allowed: true, addresses };
}

export type UrlVerdict = { allowed: true; url: URL } | { allowed: false; reason: string };

export async function checkUrl(
  raw: string,
  allowPrivateNetwork: boolean,
  network: EgressNetwork = systemNetwork,
): Promise<UrlVerdict> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { allowed: false, reason: 'not an absolute URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { allowed: false, reason: `the ${url.protocol} scheme is not allowed (only http and https)` };
  if (allowPrivateNetwork) return { allowed: true, url };
  const verdict = await resolveHost(hostAddress(url.hostname), false, network);
  return verdict.allowed ? { allowed: true, url } : verdict;
}

/** checkUrl, throwing the catalogue's refusal. */
export async function assertUrlAllowed(
  raw: string,
  allowPrivateNetwork: boolean,
  network: EgressNetwork = systemNetwork,
  param = 'url',
): Promise<URL> {
  const verdict = await checkUrl(raw, allowPrivateNetwork, network);
  if (!verdict.allowed) throw browserUrlRefused(raw, verdict.reason, param);
  return verdict.url;
}
