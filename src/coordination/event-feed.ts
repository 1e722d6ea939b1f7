// The numbered event feed behind /api/events: every bus event with an id, and a replay after a client's Last-Event-ID.

/** A bus event as the feed carries it: what an SSE frame needs, whichever replica emitted it. */
export interface FeedEvent {
  readonly name: string;
  /** Emission time, epoch ms. */
  readonly ts: number;
  readonly payload: object;
}

export interface FeedEntry {
  /** The SSE id: ordered, unique in the feed, free of CR and LF. */
  readonly id: string;
  readonly event: FeedEvent;
}

export interface EventFeed {
  /**
   * Sends `listener` the held events after `lastEventId` (none when it is undefined; all held when the feed cannot
   * place it), then every new event, in id order and each once. Resolves to the function that unsubscribes.
   */
  follow(lastEventId: string | undefined, listener: (entry: FeedEntry) => void): Promise<() => void>;
}
