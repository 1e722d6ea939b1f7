// What the config store offers and needs: the store's interface, its deps, and what one change reports.
import type { EventBus } from '../events/index.js';
import type { Logger } from 'pino';
import type { RawConfig } from './config-edit.js';
import type { ConfigRevisionPort } from './database-revision-port.js';
import type { ConfigHistory } from './history.js';
import type { GatewayConfig } from './schema.js';

/** A commit message, or one made from the top-level sections the change touches (known once the edit ran). */
export type ConfigMessage = string | ((sections: readonly string[]) => string);

export interface ConfigChange {
  config: GatewayConfig;
  previous: GatewayConfig;
  /** Top-level sections whose raw value changed. */
  sections: string[];
  /** The commit holding the change; null when git is unavailable. */
  sha: string | null;
  message: string;
  /**
   * Set when another replica wrote the change (storage: postgres) and this one only applied it: that replica already
   * emitted the change's bus events, which the shared event feed delivers everywhere.
   */
  isRemote?: true;
}

export interface ConfigChangeResult {
  /** HEAD after the change (unchanged for a no-op); null when git is unavailable. */
  sha: string | null;
  /** Empty when the change was a no-op (nothing written, nothing committed). */
  sections: string[];
}

/** What config.history, config.diff and config.gc read, whichever backend keeps the history. */
export type ConfigHistoryReader = Pick<ConfigHistory, 'history' | 'diff' | 'gc'>;

export type ConfigCheck = { valid: true; config: GatewayConfig } | { valid: false; errors: string[] };

/** Gets a deep copy of the raw document (before ${ENV} substitution) and the effective config; returns the next raw document. */
export type ConfigEdit = (raw: RawConfig, current: GatewayConfig) => unknown;

export interface ConfigStore {
  get(): GatewayConfig;
  /** The file's content before ${ENV} substitution and defaults (a deep copy): one section, or all of it. */
  raw(section?: string): unknown;
  /** RFC 7386 merge patch of the raw document. */
  patch(patch: RawConfig, message?: ConfigMessage): Promise<ConfigChangeResult>;
  /** Replaces the whole document. */
  apply(document: RawConfig, message?: ConfigMessage): Promise<ConfigChangeResult>;
  /** Sets one dotted key of a section (`null` removes it); `previous` is the raw value it replaced. */
  set(
    section: string,
    key: string,
    value: unknown,
    message?: ConfigMessage,
  ): Promise<ConfigChangeResult & { previous: unknown }>;
  /** One section as YAML text to edit: as written in the file (comments kept) where it can, secret values "***". */
  sectionYaml(section: string): string;
  /**
   * Replaces one section with the value of its YAML text (empty: removes it), validated as part of the whole config;
   * the file keeps that text as written where it reads back the same. A syntax error or refusal is invalid_params
   * naming the line. `dryRun`: validates and reports the sections it would change, writes nothing.
   */
  setSectionYaml(
    section: string,
    text: string,
    options: { message: ConfigMessage; dryRun?: boolean },
  ): Promise<ConfigChangeResult & { dryRun?: true }>;
  /** Any edit, under the write lock; every other change is one of these. */
  update(edit: ConfigEdit, message: ConfigMessage): Promise<ConfigChangeResult>;
  /** Runs an edit and full validation without writing anything (dry runs). */
  check(edit: ConfigEdit): ConfigCheck;
  /** Restores the file as it was at `sha`, as a new commit. */
  rollback(sha: string): Promise<{ sha: string | null; rolledBackTo: string }>;
  /** Git commits of config.yaml, or the database revisions under storage: postgres. */
  readonly history: ConfigHistoryReader;
  /** Called after every applied change; returns the function that unsubscribes. */
  onChange(listener: (change: ConfigChange) => void): () => void;
  /**
   * Applies what changed elsewhere now, as the watch would: the file as it is on disk (as config.apply would,
   * committed as "edited on disk"), or under storage: postgres a revision another replica wrote. An invalid version
   * is refused (logged with the keys it gets wrong) and the running config stays. Undefined when nothing was applied.
   */
  reloadFromDisk(): Promise<ConfigChangeResult | undefined>;
  /** The names of the secret values (secrets.yaml) `${secret:NAME}` references resolve from; never the values. */
  secretNames(): string[];
  /** The `${secret:NAME}` names the running config resolved (the app reports them as secret:accessed at start). */
  resolvedSecrets(): string[];
  /**
   * Sets one secret value; a config referring to it applies the new value at once (refused, nothing written, when that
   * config would be invalid). Under storage: postgres refused: the database keeps the secrets with its revisions.
   */
  setSecret(name: string, value: string): Promise<ConfigChangeResult>;
  /** Deletes one secret value, on the same terms; not_found when there is none of that name. */
  deleteSecret(name: string): Promise<ConfigChangeResult>;
  /** Stops watching the file (or the database) and drops every listener. */
  close(): Promise<void>;
}

export interface ConfigStoreDeps {
  configPath: string;
  /** Where secret values live (DESIGN §3); defaults to secrets.yaml beside the config file. */
  secretsPath?: string;
  history: ConfigHistory;
  env: NodeJS.ProcessEnv;
  log: Logger;
  events?: EventBus;
  /** Applied to every validated config before it takes effect (the CLI's --port and --host). */
  overrides?: (config: GatewayConfig) => GatewayConfig;
  /** Written as the file (mode 0600) when none exists yet; without it a missing file is a ConfigError. */
  initialDocument?: RawConfig;
  /** Watch the file and apply valid hand edits live (reloadFromDisk). Default false. */
  watchFile?: boolean;
  /**
   * Ready the git history (create the repository, commit the file as it is) after the store has opened, not before:
   * a start does not wait for those git processes. Every history read and commit waits for it. Default false.
   */
  readiesHistoryLater?: boolean;
}

export interface DatabaseConfigStoreDeps extends Omit<ConfigStoreDeps, 'history' | 'watchFile'> {
  revisions: ConfigRevisionPort;
  /** Recorded with each revision this replica writes. */
  author: string;
  /** How often the newest revision number is read in case an announcement was lost, in ms. */
  pollMs?: number;
}
