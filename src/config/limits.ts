// Every fixed limit of the config store (its git history, the file watch, the database revisions), with its unit.

export const CONFIG_LIMITS = {
  /** Each git command gets this long, in ms. */
  gitTimeoutMs: 30_000,
  /** Output of one git command beyond this many bytes fails the command instead of being buffered. */
  gitMaxOutputBytes: 16 * 1024 * 1024,
  /** A hand edit is applied once the file has been quiet this long, in ms (editors write in several steps). */
  fileWatchDebounceMs: 200,
  /** Under storage: postgres, how often a replica reads the newest revision number in case an announcement was lost, in ms. */
  revisionPollMs: 1_000,
  /** A change that finds a newer revision is rebased onto it and written again, at most this many times in all. */
  revisionWriteAttempts: 10,
  /**
   * Lines removed plus lines added beyond which a revision diff shows the whole old document removed and the new one
   * added rather than aligned: aligning costs about this many passes over both documents.
   */
  diffMaxEditLines: 2_000,
};
