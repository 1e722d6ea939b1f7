// HTTP routes: health, JSON-RPC over POST /rpc, OpenAI /v1, REST /api, the webhook and the static dashboard.
export { registerHttpSurfaces } from './surfaces.js';
export { parseInput as parseRestInput } from './rest/validation.js';
