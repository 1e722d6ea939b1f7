// Per-sender message rate of one connection: a sliding minute per sender, and at most one "too fast" notice a minute.

export const RATE_WINDOW_MS = 60_000;
/** Senders tracked at most; past it the ones idle longest are forgotten (they start a fresh minute). */
export const MAX_TRACKED_SENDERS = 10_000;

export interface SenderRate {
  /** Counts the message; `allowed` false past the limit, `notify` true for the first refusal of a minute. */
  admit(senderId: string, limit: number): { allowed: boolean; notify: boolean };
}

interface SenderWindow {
  times: number[];
  noticeAt: number;
}

export function createSenderRate(now: () => number): SenderRate {
  const senders = new Map<string, SenderWindow>();
  return {
    admit(senderId, limit) {
      const at = now();
      let window = senders.get(senderId);
      if (window === undefined) {
        window = { times: [], noticeAt: Number.NEGATIVE_INFINITY };
        if (senders.size >= MAX_TRACKED_SENDERS) {
          const idlest = senders.keys().next();
          if (idlest.done !== true) senders.delete(idlest.value);
        }
      }
      // Re-inserted so the map's order is least recently active first.
      senders.delete(senderId);
      senders.set(senderId, window);
      while (window.times.length > 0 && (window.times[0] ?? at) <= at - RATE_WINDOW_MS) window.times.shift();
      if (window.times.length < limit) {
        window.times.push(at);
        return { allowed: true, notify: false };
      }
      const notify = at - window.noticeAt >= RATE_WINDOW_MS;
      if (notify) window.noticeAt = at;
      return { allowed: false, notify };
    },
  };
}
