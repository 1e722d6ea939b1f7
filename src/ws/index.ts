// WebSocket transport for JSON-RPC: upgrade and auth, per-connection limits, heartbeat, notifications.
export { createWsGateway, type WsGateway } from './ws-gateway.js';
export { createSlidingWindowLimiter } from './sliding-window.js';
export { frameByteCap } from './frame-limit.js';
