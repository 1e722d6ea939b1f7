// Every fixed limit of the config store (its git history and the file watch), with its unit.

export const CONFIG_LIMITS = {
  /** Each git command gets this long, in ms. */
  gitTimeoutMs: 30_000,
  /** Output of one git command beyond this many bytes fails the command instead of being buffered. */
  gitMaxOutputBytes: 16 * 1024 * 1024,
  /** A hand edit is applied once the file has been quiet this long, in ms (editors write in several steps). */
  fileWatchDebounceMs: 200,
};
