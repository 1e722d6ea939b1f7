// Where an expired session's transcript goes when its key is used again: the key of the expired copy kept for retention.

/**
 * The key an expired conversation keeps once its session starts over: the session's key with `~expired-<ms>` added to
 * its last part (no `:`, so it stays a key of the same parts, owner and channel), unique per expiry.
 */
export function archiveKeyOf(sessionKey: string, expiredAt: number): string {
  return `${sessionKey}~expired-${expiredAt}`;
}
