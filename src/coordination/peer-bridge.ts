// Joins this replica's sockets to the others': notifications and retired tokens reach sockets on every replica.
import type { Logger } from 'pino';
import type { Coordination } from './coordination.js';

export interface PeerBridgeDeps {
  coordination: Pick<Coordination, 'notifications' | 'retiredTokens'>;
  /** Sends a notification to this replica's sockets of `clientId` (null: all); resolves to how many. */
  notifyHere(clientId: string | null, method: string, params: unknown): number;
  /** Sends a notification to this replica's sockets of admin tokens; resolves to how many. */
  notifyAdminsHere(method: string, params: unknown): number;
  /** Closes this replica's sockets of `clientId` (its token stopped working). */
  disconnectHere(clientId: string): void;
  /** Where this replica learns that a token's secret stopped working (TokenService.onSecretRetired). */
  onSecretRetired(listener: (clientId: string) => void): () => void;
  log: Logger;
}

export interface PeerBridge {
  /** Sends here and to every other replica; returns how many sockets here received it. */
  notify(clientId: string | null, method: string, params: unknown): number;
  /** Sends to the admin tokens' sockets here and on every other replica; returns how many here received it. */
  notifyAdmins(method: string, params: unknown): number;
  stop(): void;
}

/**
 * A notification goes to every replica, and each sends it to the sockets it holds for that client: the socket
 * may be on any of them (a webhook received on A, a WebSocket held by B). A client with sockets on no replica
 * gets nothing, as on one replica.
 */
export function createPeerBridge({
  coordination,
  notifyHere,
  notifyAdminsHere,
  disconnectHere,
  onSecretRetired,
  log,
}: PeerBridgeDeps): PeerBridge {
  const stops = [
    coordination.notifications.subscribe(({ clientId, method, params, audience }) =>
      audience === 'admins' ? notifyAdminsHere(method, params) : notifyHere(clientId, method, params),
    ),
    coordination.retiredTokens.subscribe(({ clientId }) => disconnectHere(clientId)),
    // This replica closes its own sockets itself (app.ts); the others are told here.
    onSecretRetired((clientId) => {
      coordination.retiredTokens
        .publish({ clientId })
        .catch((error: unknown) =>
          log.warn({ err: error, clientId }, 'could not tell other replicas of a retired token'),
        );
    }),
  ];
  return {
    notify(clientId, method, params) {
      coordination.notifications
        .publish({ clientId, method, params })
        .catch((error: unknown) => log.warn({ err: error, method }, 'could not pass a notification to other replicas'));
      return notifyHere(clientId, method, params);
    },
    notifyAdmins(method, params) {
      coordination.notifications
        .publish({ clientId: null, method, params, audience: 'admins' })
        .catch((error: unknown) => log.warn({ err: error, method }, 'could not pass a notification to other replicas'));
      return notifyAdminsHere(method, params);
    },
    stop() {
      for (const stop of stops) stop();
    },
  };
}
