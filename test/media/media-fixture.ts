// Helpers for the media tests: requests with a harness token, raw HTTP paths that fetch would normalise, test bytes.
import { request, type IncomingHttpHeaders } from 'node:http';
import { randomBytes } from 'node:crypto';

/** GETs `path` from the gateway with an optional bearer token and extra headers. */
export function getMedia(
  url: string,
  path: string,
  token?: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}${path}`, {
    headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...headers },
  });
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Sends `path` byte for byte: fetch (WHATWG URL) turns `\` into `/` and resolves `..`, so traversal attempts in
 * those forms must go out through node:http to reach the server as written. Conditional requests go this way too:
 * fetch adds `Cache-Control: no-cache` to any request carrying If-None-Match, which asks the server not to answer 304.
 */
export function rawGet(
  url: string,
  path: string,
  token: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: hostname, port, path, method: 'GET', headers: { authorization: `Bearer ${token}`, ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Bytes that are not text, so a test can tell whole files, ranges and other files apart. */
export function testBytes(size: number): Buffer {
  return randomBytes(size);
}
