// Errors of a request at the edge: unknown method, params over a limit, authentication, origin, replayed webhook.
import { GatewayError } from './gateway-error.js';

export const methodNotFound = (name: string) => new GatewayError('method_not_found', `Method not found: ${name}`);

/** A method's params over its declared `policy.maxParamsBytes`; the limit is named so a client can split the call. */
/**
 * A method's own params limit (policy.maxParamsBytes): -32602 invalid params, since the request was well formed;
 * -32600 stays the transport's answer to a whole message over its limit (spec error table).
 */
export const paramsTooLarge = (method: string, maxParamsBytes: number) =>
  new GatewayError(
    'invalid_params',
    `Invalid params: params of ${method} exceed its limit of ${maxParamsBytes} bytes (policy.maxParamsBytes)`,
    { param: 'params', maxParamsBytes },
  );

export const missingBearerToken = () => new GatewayError('unauthorized', 'Missing or invalid bearer token');

/** A signed webhook delivery seen again within the replay window (DESIGN §3 "webhook replay"). */
export const duplicateDelivery = (windowMinutes: number) =>
  new GatewayError('duplicate', `This webhook delivery was already accepted in the last ${windowMinutes} minutes`);

export const insufficientScope = (requiredScope: string) =>
  new GatewayError('forbidden', `Insufficient scope: requires '${requiredScope}'`, { requiredScope });

/** A JSON body nested deeper than the edge allows (`what`: "Body", or a JSON-RPC param). */
export const jsonTooDeep = (
  what: string,
  maxDepth: number,
  kind: 'invalid_request' | 'invalid_params' = 'invalid_request',
) =>
  new GatewayError(
    kind,
    `${what} nests deeper than ${maxDepth} levels`,
    kind === 'invalid_params' ? { param: 'params' } : {},
  );

/** `__proto__`, `constructor` or `prototype` where user data would become an object key. */
export const forbiddenKey = (path: string, key: string, param = path) =>
  new GatewayError('invalid_params', `${path}: the key '${key}' is not allowed`, { param });

/** A browser upgrade to /ws from a page on another site (DESIGN §3 "CORS"): the origin must be the gateway's or listed. */
export const wsOriginRefused = (origin: string) =>
  new GatewayError(
    'forbidden',
    `Origin ${origin} may not open /ws: it is neither this gateway's origin nor in gateway.cors.origins`,
  );
