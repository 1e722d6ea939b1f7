// Every fixed limit of the HTTP server and SSE writer, with its unit and default; config keys override where noted.

export const SERVER_LIMITS = {
  /**
   * Time to receive a whole request once its head is in, in ms: Node's own default, which Fastify switches off
   * (0), so a body sent one byte at a time cannot hold a socket forever. Config: gateway.requestTimeoutMs.
   */
  requestTimeoutMs: 300_000,
  /**
   * Node checks the head and request timeouts on an interval (30 s by default), which would let a socket outlive
   * headersTimeoutMs by that much; a tenth of the timeout, within these bounds (ms), keeps it close.
   */
  minConnectionCheckMs: 50,
  maxConnectionCheckMs: 1_000,
  /** Levels of arrays and objects a JSON document may nest at any edge; the outermost container is level 1. */
  maxJsonDepth: 64,
  /** Spec "Limits": SSE streams send a keepalive comment this often, in ms. */
  sseKeepAliveMs: 15_000,
  /** Spec "Limits": the reconnect delay SSE streams advertise, in ms. */
  sseRetryMs: 3_000,
  /**
   * How long a browser may cache a CORS preflight answer, in seconds (Access-Control-Max-Age). Short, so an origin
   * removed from gateway.cors.origins stops working within minutes; Chromium caps it at 7200 anyway.
   */
  corsMaxAgeSeconds: 600,
  /**
   * Clients the HTTP rate limit counts in process while its shared Redis counter is unreachable; beyond it the
   * window that ends soonest is forgotten first (as @fastify/rate-limit's own store keeps 5000).
   */
  localRateLimitKeys: 10_000,
};
