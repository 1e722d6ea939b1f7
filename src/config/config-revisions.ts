// The port the one ConfigStore is written over: where the config document and its versions are kept. Two
// implementations: config.yaml with its git history in the data dir (git-revisions.ts) and the revisions in
// PostgreSQL under storage: postgres (database-revisions.ts). The store validates, keeps secrets, locks and
// announces; a ConfigRevisions only stores, reads and watches.
import type { RawConfig } from './config-edit.js';
import type { ConfigHistoryReader } from './config-store-types.js';
import type { GatewayConfig } from './schema.js';
import type { SecretValues } from './secrets-file.js';

/** Validates a document whose `${secret:NAME}` references resolve against `secrets`; throws a ConfigError. */
export type ValidateConfig = (document: RawConfig, source: string, secrets: SecretValues) => GatewayConfig;

/** The version edits start from. */
export interface StoredConfig {
  /** The document as stored (secrets as references) with this replica's own sections: what config.raw shows. */
  document: RawConfig;
  /** The values its references resolve to. */
  secrets: SecretValues;
  /** What a validation error names: the file's path, or `config revision N`. */
  source: string;
  /** The file's text, where the version is a file (comments and layout as written). */
  text?: string;
}

/** An edit of one section given as YAML text, which the file keeps as written where it can. */
export interface SectionLayout {
  section: string;
  /** The section's value as the user wrote it (without the `section:` line); tried in turn. */
  texts: readonly string[];
}

/** A version config.history names, as a rollback restores it. */
export interface ConfigVersion {
  sha: string;
  document: RawConfig;
}

/** A version made current, and how the change is reported. */
export interface WrittenConfig {
  /** The commit or revision; null when git is unavailable. */
  sha: string | null;
  message: string;
  /** Another replica wrote it and announced it; this one only applies it. */
  isRemote?: true;
  /** The log line, when it is not the message. */
  logText?: string;
  /** Logged with the change (a revision's number and author). */
  logFields?: Record<string, unknown>;
}

/** A version made elsewhere (the file edited by hand, another replica's revision), for the store to apply or refuse. */
export interface IncomingConfig {
  document: RawConfig;
  source: string;
  /** Makes it the current version once it validated (a hand edit is committed as "edited on disk"). */
  accept(): Promise<WrittenConfig>;
  /** Says why it does not apply; the running config stays. */
  refuse(problems: string[]): void;
}

export interface ConfigRevisions {
  current(): StoredConfig;
  /** The current version's sha; null when git is unavailable. */
  head(): Promise<string | null>;
  /**
   * Run under the store's lock before each change is built: takes in what changed elsewhere since, so the change
   * lands on it rather than overwrite it. Returns a version the store applies, or undefined.
   */
  beforeChange(): Promise<IncomingConfig | undefined>;
  /** What changed elsewhere since the last look, to apply live; undefined when nothing did. */
  pull(): Promise<IncomingConfig | undefined>;
  /** An edited document as it is stored: a section this replica keeps for itself may not change (throws). */
  prepare(candidate: RawConfig, effective: GatewayConfig): RawConfig;
  /**
   * Stores a validated document as the next version; `stale` when another version came first (the store builds the
   * change again on it). `restoring`: the version a rollback brings back, so its file keeps its own layout; `layout`:
   * the text a section edited as YAML keeps.
   */
  write(
    candidate: RawConfig,
    message: string,
    restoring?: ConfigVersion,
    layout?: SectionLayout,
  ): Promise<WrittenConfig | 'stale'>;
  /** The version `ref` (a sha or its prefix) names; throws invalid_params or not_found. */
  read(ref: string): Promise<ConfigVersion>;
  readonly history: ConfigHistoryReader;
  /** Calls `onChange` when something may have changed elsewhere (a file event, an announcement, a poll). */
  watch(onChange: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /** Replaces the secret values (secrets.yaml, mode 0600); absent where secrets live elsewhere (the database). */
  writeSecrets?(secrets: SecretValues): Promise<void>;
}
