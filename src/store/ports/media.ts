// The media storage port: one metadata record per stored media file (the bytes live on disk under media.dir).

/** One stored file's record (DESIGN §3 "media metadata"; times here are epoch ms, the wire gets ISO 8601). */
export interface MediaRecord {
  /** Letters, digits, dot, hyphen and underscore only; also the file's name under media.dir. */
  id: string;
  /** The type the saver gave; null when it gave none, and the file extension decides. */
  contentType: string | null;
  size: number;
  savedAt: number;
  /** Null: never expires. */
  expiresAt: number | null;
  /** The token id that saved it, the only non-admin caller it is served to; null (saved before owners were recorded): admins only. */
  ownerId: string | null;
}

export interface MediaPort {
  /** Rejects with GatewayError `conflict` when the id is taken. */
  create(record: MediaRecord): Promise<void>;
  get(id: string): Promise<MediaRecord | undefined>;
  /** Ids of records with `expiresAt <= now`, soonest expiry first, at most `limit`. */
  expired(now: number, limit: number, signal?: AbortSignal): Promise<string[]>;
  /** Which of `ids` have a record. */
  existing(ids: readonly string[]): Promise<Set<string>>;
  /** Deletes these records; resolves to how many existed. */
  remove(ids: readonly string[]): Promise<number>;
}
