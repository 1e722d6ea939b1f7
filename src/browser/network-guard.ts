// Which URLs the browser may load: http(s) only, and no private, loopback or link-local address unless allowed.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { browserUrlRefused } from '../errors.js';
import { isPrivateAddress } from './private-address.js';

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
