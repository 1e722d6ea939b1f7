// Every fixed limit of config history (the git CLI behind config.history, diff, rollback and gc), with its unit.

export const CONFIG_LIMITS = {
  /** Each git command gets this long, in ms. */
  gitTimeoutMs: 30_000,
  /** Output of one git command beyond this many bytes fails the command instead of being buffered. */
  gitMaxOutputBytes: 16 * 1024 * 1024,
};
