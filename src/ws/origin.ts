// Which browser origins may open /ws: the gateway's own and those in gateway.cors.origins. Browsers always send
// Origin on a WebSocket upgrade and let no page forge it, so a page on another site cannot use a visitor's token.
import type { IncomingHttpHeaders } from 'node:http';

/** The first value of a header a proxy may have repeated or joined with commas. */
function firstValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.split(',', 1)[0]?.trim().toLowerCase();
}

/**
 * Same-origin compares hosts (name and port): the scheme a client used may be ended by a TLS proxy in front.
 * A proxy that rewrites Host names the public one in X-Forwarded-Host, which no browser page can set on an upgrade.
 */
function isSameOrigin(origin: string, headers: IncomingHttpHeaders): boolean {
  let host: string;
  try {
    host = new URL(origin).host.toLowerCase();
  } catch {
    return false;
  }
  return host !== '' && (host === firstValue(headers.host) || host === firstValue(headers['x-forwarded-host']));
}

/** Whether an upgrade may proceed: no Origin (not a browser), the gateway's own origin, or a listed one. */
export function isOriginAllowed(headers: IncomingHttpHeaders, allowedOrigins: readonly string[]): boolean {
  const { origin } = headers;
  if (origin === undefined) return true;
  return allowedOrigins.includes(origin) || isSameOrigin(origin, headers);
}
