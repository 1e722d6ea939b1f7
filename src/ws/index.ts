// WebSocket transport for JSON-RPC: upgrade and auth, per-connection limits, heartbeat, notifications.
export { createWsGateway, frameByteCap, type WsGateway, type WsGatewayDeps, type ConnectionState } from './ws-gateway.js';
export { createSlidingWindowLimiter, type SlidingWindowLimiter } from './sliding-window.js';
export { CLOSE_UNAUTHORIZED, CLOSE_GOING_AWAY, SHUTDOWN_REASON } from './messages.js';
