// Messages from one replica to all the others (notifications for sockets held elsewhere, retired tokens).

export interface PeerChannel<T> {
  /** Delivers `message` to the listeners on every other replica; this replica's own listeners are not called. */
  publish(message: T): Promise<void>;
  /** Returns the function that unsubscribes. */
  subscribe(listener: (message: T) => void): () => void;
}

/** One process has no peers: nothing is sent and nothing arrives. */
export function createLocalPeerChannel<T>(): PeerChannel<T> {
  return {
    publish: async () => {},
    subscribe: () => () => {},
  };
}
