// The one ConfigStore: holds the effective config and changes it safely over a ConfigRevisions (config.yaml under git,
// or revisions in PostgreSQL): edit the raw document, keep its secrets, validate the whole result, store it as the next
// version under one lock, then swap the effective config and tell subscribers. Versions made elsewhere (a hand edit of
// the file, another replica's revision) are validated and applied live, or refused with the running config kept.
import { isDeepStrictEqual } from 'node:util';
import { configChangeContended, GatewayError, secretNotFound, secretsNotInFile } from '../errors.js';
import { asInvalidParams, ConfigError, problemsOf } from './config-error.js';
import { configEditMethods } from './config-edit-methods.js';
import { changedSections, isPlainObject, keepSecrets, type RawConfig } from './config-edit.js';
import type {
  ConfigRevisions,
  ConfigVersion,
  IncomingConfig,
  SectionLayout,
  ValidateConfig,
  WrittenConfig,
} from './config-revisions.js';
import type {
  ConfigChange,
  ConfigChangeResult,
  ConfigEdit,
  ConfigMessage,
  ConfigStore,
  ConfigStoreDeps,
  DatabaseConfigStoreDeps,
} from './config-store-types.js';
import { openDatabaseRevisions } from './database-revisions.js';
import { openGitRevisions } from './git-revisions.js';
import { CONFIG_LIMITS } from './limits.js';
import { substituteReferences, validateConfig } from './load.js';
import { configSchema, type GatewayConfig } from './schema.js';

export type { RawConfig } from './config-edit.js';
export type { ConfigChange, ConfigStore, ConfigStoreDeps, DatabaseConfigStoreDeps } from './config-store-types.js';

/** The config's top-level sections, in schema order. */
export const CONFIG_SECTIONS: readonly string[] = configSchema.keyof().options;

/** What the store itself needs, whichever ConfigRevisions keeps the versions. */
type ConfigStoreCoreDeps = Pick<ConfigStoreDeps, 'env' | 'log' | 'events' | 'overrides'>;

/** config.yaml with its git history in the data dir; hand edits applied live when `watchFile` is set. */
export function createConfigStore(deps: ConfigStoreDeps): Promise<ConfigStore> {
  return openConfigStore(deps, (validate) => openGitRevisions({ ...deps, validate }));
}

/**
 * Under storage: postgres: the database's newest revision is the config of every replica, seeded from the file on an
 * empty database; each replica keeps its own `storage` and `coordination` sections from its file.
 */
export function createDatabaseConfigStore(deps: DatabaseConfigStoreDeps): Promise<ConfigStore> {
  return openConfigStore(deps, (validate) => openDatabaseRevisions({ ...deps, validate }));
}

async function openConfigStore(
  { env, log, events, overrides = (config) => config }: ConfigStoreCoreDeps,
  open: (validate: ValidateConfig) => Promise<ConfigRevisions>,
): Promise<ConfigStore> {
  /** The `${secret:NAME}` names each validated config resolved, told as secret:accessed when it is applied. */
  const resolvedBy = new WeakMap<GatewayConfig, ReadonlySet<string>>();
  const validateWith: ValidateConfig = (document, source, secrets) => {
    const resolved = new Set<string>();
    const config = overrides(
      validateConfig(substituteReferences(document, { env, secrets, resolved }, source), source),
    );
    resolvedBy.set(config, resolved);
    return config;
  };
  const reportAccessed = (config: GatewayConfig) => {
    for (const name of [...(resolvedBy.get(config) ?? [])].sort()) events?.emit('secret:accessed', { name });
  };
  const revisions = await open(validateWith);
  const validate = (document: RawConfig, source: string) => validateWith(document, source, revisions.current().secrets);
  const start = revisions.current();
  let effective = validate(start.document, start.source);
  /** The document `effective` was built from: what a change's sections are counted against. */
  let applied = start.document;
  const listeners = new Set<(change: ConfigChange) => void>();
  let lock: Promise<unknown> = Promise.resolve();
  let isSyncQueued = false;
  let isSyncFailing = false;

  function exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = lock.then(task);
    lock = run.catch(() => undefined);
    return run;
  }

  /**
   * Swaps in a version made current and tells the log, the bus and every listener. `changed`: the sections a change of
   * secret values altered (the document itself is the same).
   */
  function announce(config: GatewayConfig, written: WrittenConfig, changed?: string[]): ConfigChangeResult {
    const previous = effective;
    effective = config;
    reportAccessed(config);
    const { document } = revisions.current();
    const sections = changed ?? changedSections(applied, document);
    applied = document;
    const { sha, message, isRemote } = written;
    log.info({ sections, sha, ...written.logFields }, written.logText ?? message);
    // The writer's bus event reaches other replicas' subscribers through the shared event feed; they do not repeat it.
    if (isRemote !== true) events?.emit('config:patched', { sections, sha });
    const change: ConfigChange = { config, previous, sections, sha, message, ...(isRemote ? { isRemote } : {}) };
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (error) {
        log.error({ err: error }, 'config change listener failed');
      }
    }
    return { sha, sections };
  }

  /** A version made elsewhere: applied when valid here, else refused with the running config kept. Under the lock. */
  async function take(incoming: IncomingConfig): Promise<ConfigChangeResult | undefined> {
    let config: GatewayConfig;
    try {
      config = validate(incoming.document, incoming.source);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      incoming.refuse(problemsOf(error));
      return undefined;
    }
    return announce(config, await incoming.accept());
  }

  function candidateOf(edit: ConfigEdit): RawConfig {
    const { document, secrets } = revisions.current();
    const kept = keepSecrets(edit(structuredClone(document), effective), document, env, secrets);
    if (!isPlainObject(kept)) throw new GatewayError('invalid_params', 'The config must be an object of sections');
    return revisions.prepare(kept, effective);
  }

  function update(
    edit: ConfigEdit,
    message: ConfigMessage,
    refusal?: string,
    restoring?: ConfigVersion,
    layout?: SectionLayout,
  ): Promise<ConfigChangeResult> {
    return exclusive(async () => {
      for (let attempt = 1; attempt <= CONFIG_LIMITS.revisionWriteAttempts; attempt += 1) {
        const incoming = await revisions.beforeChange();
        if (incoming !== undefined) await take(incoming);
        const candidate = candidateOf(edit);
        const sections = changedSections(revisions.current().document, candidate);
        if (sections.length === 0) return { sha: await revisions.head(), sections: [] };
        let config: GatewayConfig;
        try {
          config = validate(candidate, 'the changed config');
        } catch (error) {
          throw asInvalidParams(error, refusal);
        }
        const text = typeof message === 'string' ? message : message(sections);
        const written = await revisions.write(candidate, text, restoring, layout);
        // Another replica wrote first: the edit runs again on its revision, so neither change is lost.
        if (written === 'stale') continue;
        return announce(config, written);
      }
      throw configChangeContended(CONFIG_LIMITS.revisionWriteAttempts);
    });
  }

  function reloadFromDisk(): Promise<ConfigChangeResult | undefined> {
    return exclusive(async () => {
      const incoming = await revisions.pull();
      return incoming === undefined ? undefined : take(incoming);
    });
  }

  /** At most one look waits behind the running one, so signals cannot pile up while the storage is slow. */
  function sync(): void {
    if (isSyncQueued) return;
    isSyncQueued = true;
    const task = async () => {
      isSyncQueued = false;
      const incoming = await revisions.pull();
      if (incoming !== undefined) await take(incoming);
    };
    void exclusive(task).then(
      () => {
        if (isSyncFailing) log.info('config changes made elsewhere are readable again');
        isSyncFailing = false;
      },
      (error: unknown) => {
        if (!isSyncFailing)
          log.warn({ err: error }, 'a config change made elsewhere could not be applied; trying again at the next one');
        isSyncFailing = true;
      },
    );
  }

  const stopWatching = await revisions.watch(sync);

  /** Sets (or with null deletes) one secret value; the config referring to it must stay valid, and applies at once. */
  function changeSecret(name: string, value: string | null): Promise<ConfigChangeResult> {
    return exclusive(async () => {
      if (revisions.writeSecrets === undefined) throw secretsNotInFile();
      const { document, secrets, source } = revisions.current();
      if (value === null && !secrets.has(name)) throw secretNotFound(name);
      const next = new Map(secrets);
      if (value === null) next.delete(name);
      else next.set(name, value);
      let config: GatewayConfig;
      try {
        config = validateWith(document, source, next);
      } catch (error) {
        throw asInvalidParams(error, `Cannot ${value === null ? 'delete' : 'set'} secret ${name}`);
      }
      await revisions.writeSecrets(next);
      events?.emit('secret:modified', { name, action: value === null ? 'deleted' : 'set' });
      const sections = CONFIG_SECTIONS.filter(
        (section) => !isDeepStrictEqual(Reflect.get(effective, section), Reflect.get(config, section)),
      );
      const message = `secret ${name} ${value === null ? 'deleted' : 'set'}`;
      if (sections.length === 0) {
        reportAccessed(config);
        effective = config;
        return { sha: await revisions.head(), sections };
      }
      return announce(config, { sha: await revisions.head(), message }, sections);
    });
  }

  return {
    get: () => effective,
    raw(section) {
      const { document } = revisions.current();
      return structuredClone(section === undefined ? document : document[section]);
    },
    history: revisions.history,
    update: (edit, message) => update(edit, message),
    ...configEditMethods({
      update: (edit, message, layout) => update(edit, message, undefined, undefined, layout),
      candidateOf,
      validate,
      current: () => revisions.current(),
    }),
    async rollback(ref) {
      const target = await revisions.read(ref);
      const label = target.sha.slice(0, 7);
      const result = await update(
        () => structuredClone(target.document),
        `config.rollback to ${label}`,
        `Cannot roll back to ${label}`,
        target,
      );
      return { sha: result.sha, rolledBackTo: target.sha };
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reloadFromDisk,
    secretNames: () => [...revisions.current().secrets.keys()].sort(),
    resolvedSecrets: () => [...(resolvedBy.get(effective) ?? [])].sort(),
    setSecret: (name, value) => changeSecret(name, value),
    deleteSecret: (name) => changeSecret(name, null),
    async close() {
      await stopWatching();
      listeners.clear();
      await lock;
      await revisions.close();
    },
  };
}
