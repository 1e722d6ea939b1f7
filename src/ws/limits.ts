// Every fixed limit of the WebSocket transport, with its unit; the configurable ones are gateway.ws* in config.

export const WS_LIMITS = {
  /**
   * A character of the spec's limit (one UTF-16 unit) takes at most 3 UTF-8 bytes; 4 bytes per character plus
   * this slack (bytes) leaves room for messages well past the limit, which then get the spec's -32600 answer.
   */
  frameSlackBytes: 64 * 1024,
  /** Whatever wsMaxMessageBytes says, no frame larger than `ws`'s own default cap is buffered (bytes). */
  frameCeilingBytes: 100 * 1024 * 1024,
  /** How often open sockets re-check their token (revocations made outside this process), in ms. */
  revalidateIntervalMs: 5_000,
};
