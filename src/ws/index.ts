// WebSocket transport for JSON-RPC: upgrade and auth, per-connection limits, heartbeat, notifications.
export { createWsGateway, type WsGateway, type WsGatewayDeps } from './ws-gateway.js';
export { createSlidingWindowLimiter, type SlidingWindowLimiter } from './sliding-window.js';
export { CLOSE_UNAUTHORIZED, CLOSE_GOING_AWAY, SHUTDOWN_REASON } from './messages.js';
export { frameByteCap, WS_FRAME_CEILING_BYTES } from './frame-limit.js';
