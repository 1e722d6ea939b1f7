// Small fetch helpers for JSON-RPC over POST /rpc and JSON routes of a started gateway.

export interface RpcHttpResult {
  status: number;
  headers: Headers;
  /** Parsed JSON body, or undefined for an empty body (204). */
  body: unknown;
}

/** POSTs `payload` (JSON-encoded unless it is already a string) to `<url>/rpc`. */
export async function postRpc(
  url: string,
  payload: unknown,
  token?: string,
  headers: Record<string, string> = {},
): Promise<RpcHttpResult> {
  const response = await fetch(`${url}/rpc`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...headers,
    },
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? undefined : (JSON.parse(text) as unknown),
  };
}

let nextId = 1;

/** Calls one method over POST /rpc and returns the JSON-RPC response object. */
export async function callRpc(
  url: string,
  token: string,
  method: string,
  params?: unknown,
): Promise<Record<string, unknown>> {
  const { body } = await postRpc(
    url,
    { jsonrpc: '2.0', id: nextId++, method, ...(params === undefined ? {} : { params }) },
    token,
  );
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new Error(`not a JSON-RPC response: ${JSON.stringify(body)}`);
  return body as Record<string, unknown>;
}

/** The part of App that in-process requests need. */
interface Injectable {
  http: {
    inject(options: {
      method: 'POST';
      url: string;
      headers: Record<string, string>;
      payload: string;
    }): PromiseLike<{ statusCode: number; body: string }>;
  };
}

/** Calls one method over POST /rpc in-process (app.http.inject) and returns the JSON-RPC response object. */
export async function injectRpc(
  app: Injectable,
  token: string,
  method: string,
  params?: unknown,
): Promise<Record<string, unknown>> {
  const response = await app.http.inject({
    method: 'POST',
    url: '/rpc',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, ...(params === undefined ? {} : { params }) }),
  });
  const body: unknown = JSON.parse(response.body);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new Error(`not a JSON-RPC response: ${response.body}`);
  return body as Record<string, unknown>;
}
