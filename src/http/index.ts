// HTTP routes: health, JSON-RPC over POST /rpc, OpenAI /v1, REST /api, the webhook and the static dashboard.
export { registerHealthRoutes } from './health.js';
export { registerRpcRoute, type RpcRouteDeps } from './rpc-route.js';
export { registerDashboard } from './dashboard.js';
export { registerWebhookRoute, verifySignature, type WebhookDeps } from './webhook.js';
export { registerHttpSurfaces, type HttpSurfacesDeps } from './surfaces.js';
export { parseInput as parseRestInput } from './rest/validation.js';
