// How long a server that failed to connect is left alone before the next attempt: exponential, capped, jittered.

/** The first wait after a failed connect (ms). */
export const MCP_BACKOFF_BASE_MS = 1_000;
/** The longest wait between attempts (ms), however many failed in a row. */
export const MCP_BACKOFF_MAX_MS = 60_000;

/**
 * The wait after the `failures`-th failed attempt in a row: base·2^(failures−1) capped, then between half and all of
 * it (`random` in [0, 1)), so gateways that lost a server together do not all retry at the same instant.
 */
export function backoffMs(failures: number, random: () => number): number {
  const ceiling = Math.min(MCP_BACKOFF_MAX_MS, MCP_BACKOFF_BASE_MS * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}
