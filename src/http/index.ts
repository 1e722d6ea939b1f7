// HTTP routes: health, JSON-RPC over POST /rpc, the webhook and the static dashboard.
export { registerHealthRoutes } from './health.js';
export { registerRpcRoute, type RpcRouteDeps } from './rpc-route.js';
export { registerDashboard } from './dashboard.js';
export { registerWebhookRoute, verifySignature, type WebhookDeps } from './webhook.js';
