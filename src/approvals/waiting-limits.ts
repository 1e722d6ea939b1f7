// The approvals.maxPending* limits: how many requests of this process wait per session key and per requesting token.
import type { ApprovalsConfig } from '../config/index.js';

/** Who a waiting request belongs to: the turn's session and the token that started it. */
interface WaitingOwner {
  sessionKey: string;
  clientId: string;
}

export interface WaitingLimits {
  /** Why a new request of this turn may not wait, or undefined when it may. */
  overLimit(owner: WaitingOwner): string | undefined;
  /** Counts a request that starts waiting. */
  add(owner: WaitingOwner): void;
  /** Uncounts a request that stopped waiting; call once per add. */
  remove(owner: WaitingOwner): void;
}

/** The denial of a call whose token or session already has `limit` requests waiting. */
function tooManyWaiting(
  limit: number,
  of: 'token' | 'session',
  key: 'maxPendingPerOwner' | 'maxPendingPerSession',
): string {
  const waiting = limit === 1 ? `1 approval request of this ${of} is` : `${limit} approval requests of this ${of} are`;
  return `${waiting} already waiting (approvals.${key}); try again once ${limit === 1 ? 'it is' : 'one is'} decided`;
}

/** `config` is read at each check, so a changed limit applies to the next gated call. */
export function createWaitingLimits(
  config: () => Pick<ApprovalsConfig, 'maxPendingPerSession' | 'maxPendingPerOwner'>,
): WaitingLimits {
  const waitingPerSession = new Map<string, number>();
  const waitingPerOwner = new Map<string, number>();
  const adjust = (counts: Map<string, number>, key: string, by: number) => {
    const next = (counts.get(key) ?? 0) + by;
    if (next > 0) counts.set(key, next);
    else counts.delete(key);
  };
  return {
    overLimit({ sessionKey, clientId }) {
      const { maxPendingPerSession, maxPendingPerOwner } = config();
      if ((waitingPerOwner.get(clientId) ?? 0) >= maxPendingPerOwner)
        return tooManyWaiting(maxPendingPerOwner, 'token', 'maxPendingPerOwner');
      if ((waitingPerSession.get(sessionKey) ?? 0) >= maxPendingPerSession)
        return tooManyWaiting(maxPendingPerSession, 'session', 'maxPendingPerSession');
      return undefined;
    },
    add({ sessionKey, clientId }) {
      adjust(waitingPerSession, sessionKey, 1);
      adjust(waitingPerOwner, clientId, 1);
    },
    remove({ sessionKey, clientId }) {
      adjust(waitingPerSession, sessionKey, -1);
      adjust(waitingPerOwner, clientId, -1);
    },
  };
}
