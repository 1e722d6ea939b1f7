// HTTP server, authentication (tokens, scopes, mTLS), rate limits, the REST error envelope and the SSE writer.
export { createHttpServer } from './http-server.js';
export { createAuthenticator, bearerSecret, hashSecret, type Authenticator } from './authenticator.js';
export { createRequestAuth, type RequestAuth } from './request-auth.js';
export { createTokenService, type TokenService } from './token-service.js';
export {
  createTokenDirectory,
  forgettingOnWrite,
  TOKEN_LIST_REFRESH_MS,
  type TokenDirectory,
} from './token-directory.js';
export { grantsMcp, grantsMethodScope, grantsMetrics, grantsOpenAi, grantsRest, hasAllScopes } from './scopes.js';
export { registerCors } from './cors.js';
export { HTTP_STATUS, logHttpError, prepareErrorReply, restErrorHandler } from './http-errors.js';
export { useErrorEnvelope } from './framework-errors.js';
export {
  requestSignal,
  endStreamsOnClose,
  openSseStream,
  pipeToSse,
  SSE_KEEP_ALIVE_MS,
  SSE_RETRY_MS,
  type SseFrame,
  type SseStream,
} from './sse.js';
export { createAsyncQueue } from './async-queue.js';
export { MAX_JSON_DEPTH, canExceedJsonDepth, exceedsJsonDepth } from './json-depth.js';
export { parseJsonBody } from './json-body.js';
export { watchUnsafeConfig } from './unsafe-config.js';
export { createRefusalBursts } from './refusal-bursts.js';
