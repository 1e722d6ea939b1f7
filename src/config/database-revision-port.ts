// The storage port a database-held config needs (storage: postgres; store/postgres/config-revisions.ts implements it):
// numbered revisions of the config document, the secret values they refer to, and word of each new revision.
import type { RawConfig } from './config-edit.js';

export interface ConfigRevision {
  /** 1 for the first revision, then one more for each; the highest is the current config. */
  revision: number;
  /** 40 hex digits derived from the revision, its parent and its content; what config.history and rollback name. */
  sha: string;
  /** The config document without the replica-local sections; secrets only as references. */
  document: RawConfig;
  message: string;
  /** The replica that wrote it. */
  author: string;
  /** ISO 8601, UTC. */
  createdAt: string;
}

export type ConfigRevisionSummary = Omit<ConfigRevision, 'document'>;

export interface ConfigRevisionAppend {
  /** The revision the change was made on; the append is refused when another one was added since. */
  base: number;
  document: RawConfig;
  message: string;
  author: string;
  /** Secret values the document refers to that the port does not hold yet. */
  newSecrets: ReadonlyMap<string, string>;
}

/** `stale`: another revision (or a different value under one of the new secret names) came first; nothing was written. */
export type ConfigRevisionAppendOutcome = { ok: true; revision: ConfigRevision } | { ok: false; reason: 'stale' };

export interface ConfigRevisionPort {
  /** The highest revision number, 0 when there is none. */
  latestNumber(): Promise<number>;
  latest(): Promise<ConfigRevision | undefined>;
  get(revision: number): Promise<ConfigRevision | undefined>;
  /** Revisions whose sha starts with `prefix` (lower-case hex), at most two: enough to tell an ambiguous prefix. */
  findBySha(prefix: string): Promise<ConfigRevision[]>;
  /** Newest first, at most `limit`. */
  list(limit: number): Promise<ConfigRevisionSummary[]>;
  stats(): Promise<{ revisions: number; sizeBytes: number }>;
  /** Every secret value revisions refer to; values are never removed, so any old revision still resolves. */
  secrets(): Promise<Map<string, string>>;
  /** Writes the new secrets and revision `base + 1` in one transaction, then announces it to every listener. */
  append(entry: ConfigRevisionAppend): Promise<ConfigRevisionAppendOutcome>;
  /**
   * Calls `onRevision` with the number of each revision any replica appends (this one's included), from once the
   * returned promise resolves until the stop function it gives is called. Announcements can be lost while the
   * connection is down; callers poll latestNumber as well.
   */
  listen(onRevision: (revision: number) => void): Promise<() => Promise<void>>;
  /** Stops listening and releases the port's connections. */
  close(): Promise<void>;
}
