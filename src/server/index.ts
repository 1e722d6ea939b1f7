// HTTP server, authentication (tokens, scopes, mTLS), rate limits, the REST error envelope and the SSE writer.
export { createHttpServer, type HttpServerDeps } from './http-server.js';
export { createAuthenticator, bearerSecret, hashSecret, type Authenticator } from './authenticator.js';
export { createRequestAuth, type RequestAuth, type RequestAuthOptions } from './request-auth.js';
export { createTokenService, type TokenService, type TokenEntry, type IssuedToken } from './token-service.js';
export {
  createTokenDirectory,
  forgettingOnWrite,
  TOKEN_LIST_REFRESH_MS,
  type TokenDirectory,
  type TokenGrant,
} from './token-directory.js';
export { grantsMethodScope, grantsOpenAi, grantsRest, hasAllScopes } from './scopes.js';
export { registerCors, type CorsPolicy } from './cors.js';
export { HTTP_STATUS, logHttpError, prepareErrorReply, restErrorHandler, sendRestError } from './http-errors.js';
export { useErrorEnvelope, type ErrorEnvelope } from './framework-errors.js';
export {
  requestSignal,
  createAsyncQueue,
  endStreamsOnClose,
  formatSseFrame,
  KEEP_ALIVE,
  openSseStream,
  pipeToSse,
  SSE_KEEP_ALIVE_MS,
  SSE_RETRY_MS,
  withKeepAlive,
  type AsyncQueue,
  type AsyncQueueOptions,
  type SseFrame,
  type SseState,
  type SseStream,
} from './sse.js';
export type { TokenStore, StoredToken } from './token-store.js';
export { MAX_JSON_DEPTH, canExceedJsonDepth, exceedsJsonDepth } from './json-depth.js';
export { parseJsonBody, useJsonBodyParser, type JsonBodyOptions } from './json-body.js';
