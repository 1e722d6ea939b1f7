// HTTP routes: health, JSON-RPC over POST /rpc and the static dashboard.
export { registerHealthRoutes } from './health.js';
export { registerRpcRoute, type RpcRouteDeps } from './rpc-route.js';
export { registerDashboard } from './dashboard.js';
