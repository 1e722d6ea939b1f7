// The ConfigStore under storage: postgres: the database's newest revision is the config of every replica. A change is
// validated, its secrets moved out, and appended as the next revision (rebased onto a newer one when another replica
// wrote first); every replica applies a new revision as soon as it is announced, or at the next poll.
import { isDeepStrictEqual } from 'node:util';
import { basename, dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { configChangeContended, GatewayError, replicaLocalSection } from '../errors.js';
import { ConfigError } from './config-error.js';
import { configEditMethods } from './config-edit-methods.js';
import { parseFile, readConfigText } from './config-document.js';
import { changedSections, isPlainObject, keepSecrets, type RawConfig } from './config-edit.js';
import type { ConfigRevision, ConfigRevisionPort } from './config-revisions.js';
import type {
  ConfigChange,
  ConfigChangeResult,
  ConfigEdit,
  ConfigHistoryReader,
  ConfigStore,
  ConfigStoreDeps,
} from './config-store-types.js';
import { asInvalidParams } from './config-store.js';
import { CONFIG_LIMITS } from './limits.js';
import { substituteReferences, validateConfig } from './load.js';
import { configSchema, type GatewayConfig } from './schema.js';
import { readSecrets, type SecretValues } from './secrets-file.js';
import { externalizeSecrets } from './secrets.js';
import { unifiedDiff } from './text-diff.js';

/** Sections each replica reads from its own file: how it reaches the database and Redis. Never stored in a revision. */
const REPLICA_SECTIONS = ['storage', 'coordination'] as const;
const COMMIT_REF = /^[0-9a-fA-F]{4,64}$/;

export interface DatabaseConfigStoreDeps extends Omit<ConfigStoreDeps, 'history' | 'watchFile'> {
  revisions: ConfigRevisionPort;
  /** Recorded with each revision this replica writes. */
  author: string;
  /** How often the newest revision number is read in case an announcement was lost, in ms. */
  pollMs?: number;
}

export async function createDatabaseConfigStore(deps: DatabaseConfigStoreDeps): Promise<ConfigStore> {
  const {
    revisions,
    configPath,
    secretsPath = join(dirname(configPath), 'secrets.yaml'),
    env,
    log,
    events,
    overrides = (config) => config,
    initialDocument,
    author,
    pollMs = CONFIG_LIMITS.revisionPollMs,
  } = deps;
  const listeners = new Set<(change: ConfigChange) => void>();
  let lock: Promise<unknown> = Promise.resolve();
  const fileRaw = parseFile((await readConfigText(configPath, initialDocument)).text, configPath).raw;
  const local: RawConfig = Object.fromEntries(
    REPLICA_SECTIONS.filter((name) => Object.hasOwn(fileRaw, name)).map((name) => [name, fileRaw[name]]),
  );
  const withLocal = (document: RawConfig): RawConfig => ({ ...withoutLocal(document), ...structuredClone(local) });

  let secrets: SecretValues = await revisions.secrets();
  let head: ConfigRevision = (await revisions.latest()) ?? (await seed());
  /** The newest revision with the file's own sections: what edits start from and config.get shows. */
  let view = withLocal(head.document);
  let effective = validate(view, `config revision ${head.revision}`);
  /** The view `effective` was built from; behind `view` only while a revision is refused here. */
  let applied = view;
  let refusedRevision = 0;
  let isSyncFailing = false;
  let isSyncQueued = false;

  function validate(candidate: RawConfig, source: string, known: SecretValues = secrets): GatewayConfig {
    return overrides(validateConfig(substituteReferences(candidate, { env, secrets: known }, source), source));
  }

  /** First start on an empty database: the file (its secrets moved into the database) becomes revision 1. */
  async function seed(): Promise<ConfigRevision> {
    const known = new Map([...(await readSecrets(secretsPath)), ...secrets]);
    validate(fileRaw, configPath, known);
    const externalized = externalizeSecrets(withoutLocal(fileRaw), known);
    const newSecrets = new Map([...externalized.secrets].filter(([name]) => !secrets.has(name)));
    const outcome = await revisions.append({
      base: 0,
      document: externalized.raw,
      message: 'initial config',
      author,
      newSecrets,
    });
    if (outcome.ok) {
      secrets = externalized.secrets;
      log.info({ revision: 1 }, `config seeded into the database from ${configPath}`);
      return outcome.revision;
    }
    // Another replica seeded first: its file's config is the one every replica runs.
    secrets = await revisions.secrets();
    const latest = await revisions.latest();
    if (latest === undefined)
      throw new GatewayError('internal', 'config revision 1 was written by another replica but cannot be read');
    return latest;
  }

  function exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = lock.then(task);
    lock = run.catch(() => undefined);
    return run;
  }

  function announce(config: GatewayConfig, sections: string[], message: string, isOwn: boolean): void {
    const previous = effective;
    effective = config;
    applied = view;
    log.info(
      { sections, sha: head.sha, revision: head.revision, author: head.author },
      isOwn ? message : `applied config revision ${head.revision}: ${message}`,
    );
    // The writer's bus event reaches other replicas' subscribers through the shared event feed; they do not repeat it.
    if (isOwn) events?.emit('config:patched', { sections, sha: head.sha });
    const change: ConfigChange = {
      config,
      previous,
      sections,
      sha: head.sha,
      message,
      ...(isOwn ? {} : { isRemote: true as const }),
    };
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (error) {
        log.error({ err: error }, 'config change listener failed');
      }
    }
  }

  /** Applies the newest revision when another replica wrote it; under the lock. */
  async function catchUp(): Promise<void> {
    if ((await revisions.latestNumber()) <= head.revision) return;
    const next = await revisions.latest();
    if (next === undefined || next.revision <= head.revision) return;
    secrets = await revisions.secrets();
    head = next;
    view = withLocal(next.document);
    let config: GatewayConfig;
    try {
      config = validate(view, `config revision ${next.revision}`);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      if (refusedRevision !== next.revision)
        log.error(
          { revision: next.revision, problems: error.problems },
          'config revision is not valid on this replica (its environment differs?); the running config stays',
        );
      refusedRevision = next.revision;
      return;
    }
    announce(config, changedSections(applied, view), next.message, false);
  }

  /** At most one catch-up waits behind the running one, so polls cannot pile up while the database is slow. */
  function sync(): void {
    if (isSyncQueued) return;
    isSyncQueued = true;
    const task = async () => {
      isSyncQueued = false;
      await catchUp();
    };
    void exclusive(task).then(
      () => {
        if (isSyncFailing) log.info('config revisions are readable again');
        isSyncFailing = false;
      },
      (error: unknown) => {
        if (!isSyncFailing) log.warn({ err: error }, 'reading config revisions failed; retrying at the next poll');
        isSyncFailing = true;
      },
    );
  }

  /** The edit's result; a replica section it changes is refused, one it leaves out stays the file's. */
  function candidateOf(edit: ConfigEdit): RawConfig {
    const kept = keepSecrets(edit(structuredClone(view), effective), view, env, secrets);
    if (!isPlainObject(kept)) throw new GatewayError('invalid_params', 'The config must be an object of sections');
    for (const name of REPLICA_SECTIONS) {
      if (kept[name] === undefined) continue;
      let resolved: unknown;
      try {
        resolved = substituteReferences(kept[name], { env, secrets }, 'the changed config', [name]);
      } catch (error) {
        throw asInvalidParams(error);
      }
      const given = configSchema.shape[name].safeParse(resolved);
      if (!given.success || !isDeepStrictEqual(given.data, effective[name])) throw replicaLocalSection(name);
    }
    return withLocal(kept);
  }

  function update(edit: ConfigEdit, message: string, refusal?: string): Promise<ConfigChangeResult> {
    return exclusive(async () => {
      for (let attempt = 1; attempt <= CONFIG_LIMITS.revisionWriteAttempts; attempt += 1) {
        await catchUp();
        const candidate = candidateOf(edit);
        if (changedSections(view, candidate).length === 0) return { sha: head.sha, sections: [] };
        let config: GatewayConfig;
        try {
          config = validate(candidate, 'the changed config');
        } catch (error) {
          throw asInvalidParams(error, refusal);
        }
        const externalized = externalizeSecrets(withoutLocal(candidate), secrets);
        const newSecrets = new Map([...externalized.secrets].filter(([name]) => !secrets.has(name)));
        const outcome = await revisions.append({
          base: head.revision,
          document: externalized.raw,
          message,
          author,
          newSecrets,
        });
        // Another replica wrote first: the edit runs again on its revision, so neither change is lost.
        if (!outcome.ok) continue;
        secrets = externalized.secrets;
        head = outcome.revision;
        view = withLocal(head.document);
        const sections = changedSections(applied, view);
        announce(config, sections, message, true);
        return { sha: head.sha, sections };
      }
      throw configChangeContended(CONFIG_LIMITS.revisionWriteAttempts);
    });
  }

  async function resolveRevision(ref: string): Promise<ConfigRevision> {
    if (!COMMIT_REF.test(ref))
      throw new GatewayError('invalid_params', `'sha' must be a commit hash (4 to 64 hex digits)`, { param: 'sha' });
    const found = await revisions.findBySha(ref.toLowerCase());
    const [only] = found;
    if (only === undefined)
      throw new GatewayError('not_found', `Config history has no commit '${ref}'`, { param: 'sha' });
    if (found.length > 1)
      throw new GatewayError('invalid_params', `'${ref}' names more than one config revision; give more digits`, {
        param: 'sha',
      });
    return only;
  }

  const render = (document: RawConfig): string => stringify(document);
  const history: ConfigHistoryReader = {
    async history(limit) {
      const entries = await revisions.list(Math.max(1, Math.floor(limit)));
      return entries.map((entry) => ({
        sha: entry.sha,
        date: entry.createdAt,
        message: entry.message,
        revision: entry.revision,
        author: entry.author,
      }));
    },
    async diff(ref) {
      const target = ref === undefined ? await revisions.latest() : await resolveRevision(ref);
      if (target === undefined) return '';
      const parent = target.revision > 1 ? await revisions.get(target.revision - 1) : undefined;
      return unifiedDiff(
        parent === undefined ? '' : render(parent.document),
        render(target.document),
        basename(configPath),
      );
    },
    async gc() {
      const stats = await revisions.stats();
      return {
        ok: true,
        commits: stats.revisions,
        packs: 0,
        looseObjects: 0,
        sizeKb: Math.ceil(stats.sizeBytes / 1024),
      };
    },
  };

  const stopListening = await revisions.listen((revision) => {
    if (revision > head.revision) sync();
  });
  const poll = setInterval(sync, pollMs);
  poll.unref();

  return {
    get: () => effective,
    raw: (section) => structuredClone(section === undefined ? view : view[section]),
    history,
    update: (edit, message) => update(edit, message),
    ...configEditMethods({ update, candidateOf, validate }),
    async rollback(ref) {
      const target = await resolveRevision(ref);
      const label = target.sha.slice(0, 7);
      const result = await update(
        () => structuredClone(target.document),
        `config.rollback to ${label}`,
        `Cannot roll back to ${label}`,
      );
      return { sha: result.sha, rolledBackTo: target.sha };
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    // The database holds the config: hand edits of the file's other sections are not applied (README, storage: postgres).
    reloadFromDisk: () => Promise.resolve(undefined),
    async close() {
      clearInterval(poll);
      listeners.clear();
      await stopListening();
      await lock;
      await revisions.close();
    },
  };
}

function withoutLocal(document: RawConfig): RawConfig {
  return Object.fromEntries(
    Object.entries(document).filter(([name]) => !(REPLICA_SECTIONS as readonly string[]).includes(name)),
  );
}
