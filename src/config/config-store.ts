// Holds the effective config and changes it safely: edit the raw YAML document, validate the whole result, move
// secrets out to secrets.yaml, write the file atomically, commit it, then swap the effective config and tell subscribers.
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GatewayError } from '../errors.js';
import { ConfigError } from './config-error.js';
import { configEditMethods } from './config-edit-methods.js';
import { moveSecretsOut, parseFile, readConfigText, type ConfigFile, type Prepared } from './config-document.js';
import { changedSections, isPlainObject, keepSecrets, renderDocument, type RawConfig } from './config-edit.js';
import { removeOrphanTempFiles, writeAtomically } from './config-file.js';
import type {
  ConfigChange,
  ConfigChangeResult,
  ConfigEdit,
  ConfigStore,
  ConfigStoreDeps,
} from './config-store-types.js';
import { watchConfigFile } from './file-watch.js';
import { substituteReferences, validateConfig } from './load.js';
import { configSchema, type GatewayConfig } from './schema.js';
import { readSecrets, writeSecrets, type SecretValues } from './secrets-file.js';
import { externalizeSecrets, externalizeSecretsInText } from './secrets.js';

export type { RawConfig } from './config-edit.js';
export type {
  ConfigChange,
  ConfigChangeResult,
  ConfigCheck,
  ConfigEdit,
  ConfigHistoryReader,
  ConfigStore,
  ConfigStoreDeps,
} from './config-store-types.js';

/** The config's top-level sections, in schema order. */
export const CONFIG_SECTIONS: readonly string[] = configSchema.keyof().options;

/** A ConfigError from validating a change, as the invalid_params error the caller gets (naming the first key). */
export function asInvalidParams(error: unknown, prefix = 'Invalid config'): unknown {
  if (!(error instanceof ConfigError)) return error;
  const param = error.problems[0]?.split(': ')[0];
  const text = error.problems.length > 0 ? error.problems.join('; ') : error.message;
  return new GatewayError('invalid_params', `${prefix}: ${text}`, param === undefined ? {} : { param });
}

export async function createConfigStore(deps: ConfigStoreDeps): Promise<ConfigStore> {
  const {
    configPath,
    secretsPath = join(dirname(configPath), 'secrets.yaml'),
    history,
    env,
    log,
    events,
    overrides = (config) => config,
    initialDocument,
  } = deps;
  let stopWatch = (): void => {};
  const listeners = new Set<(change: ConfigChange) => void>();
  let lock: Promise<unknown> = Promise.resolve();

  // A write killed between its temp file and the rename leaves the temp file; nothing else would ever remove it.
  const orphans = await removeOrphanTempFiles([configPath, secretsPath]);
  if (orphans.length > 0) log.info({ paths: orphans }, 'removed temp files of config writes that were interrupted');
  let secrets: SecretValues = await readSecrets(secretsPath);
  const initial = await readConfigText(configPath, initialDocument);
  let file = parseFile(initial.text, configPath);
  let effective = validate(file.raw, configPath);
  const isGitInstalled = await history.isAvailable();
  let isHistoryAvailable = isGitInstalled;

  // Secrets leave the file before anything is committed (DESIGN §3 "secrets and config history").
  const prepared = moveSecretsOut(file, secrets, configPath);
  if (!initial.isOnDisk || prepared.file.text !== initial.text) {
    try {
      await mkdir(dirname(configPath), { recursive: true, mode: 0o700 });
      await save(prepared);
    } catch (error) {
      if (!initial.isOnDisk) throw error;
      isHistoryAvailable = false;
      log.warn(
        { err: error },
        'config file holds secrets and cannot be rewritten: config history is off so that they are never committed',
      );
    }
  }

  if (!isGitInstalled) log.warn('git is not installed: config changes are applied but not versioned');
  else if (isHistoryAvailable) {
    try {
      // Scrubbed first, so that the file as it is now lands on a history that already matches it.
      if (!(await history.isSecretFree())) {
        await scrubHistory();
        await history.markSecretFree();
      }
      await history.init();
    } catch (error) {
      isHistoryAvailable = false;
      log.warn({ err: error }, 'config history could not be initialised: config changes are applied but not versioned');
    }
  }

  function validate(candidate: RawConfig, source: string): GatewayConfig {
    return overrides(validateConfig(substituteReferences(candidate, { env, secrets }, source), source));
  }

  /** Writes secrets.yaml (when it gained a value) before the config that refers to it, then adopts both. */
  async function save(next: Prepared): Promise<void> {
    if (next.secrets !== secrets) await writeSecrets(secretsPath, next.secrets);
    secrets = next.secrets;
    await writeAtomically(configPath, next.file.text);
    file = next.file;
  }

  /**
   * A history written before secrets moved out: every commit's file gets references instead, the values
   * go to secrets.yaml before any ref moves, and the old objects are pruned.
   */
  async function scrubHistory(): Promise<void> {
    let known = secrets;
    const result = await history.rewriteFile(
      (text) => {
        const scrubbed = externalizeSecretsInText(text, known);
        known = scrubbed.secrets;
        return scrubbed.text;
      },
      async () => {
        await writeSecrets(secretsPath, known);
        secrets = known;
      },
    );
    if (result.rewritten > 0)
      log.warn(
        { commits: result.rewritten },
        'config history held secrets: they moved to secrets.yaml and those commits were rewritten',
      );
  }

  function exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = lock.then(task);
    lock = run.catch(() => undefined);
    return run;
  }

  async function commit(message: string): Promise<string | null> {
    return isHistoryAvailable ? history.commit(message) : null;
  }

  async function head(): Promise<string | null> {
    return isHistoryAvailable ? history.head() : null;
  }

  /**
   * The file changed behind our back (an editor, a restore): when it is still a readable document, move its
   * secrets out, keep that version in history and build the next edit on it rather than silently overwrite it.
   */
  async function adoptExternalEdit(): Promise<void> {
    const onDisk = await readFile(configPath, 'utf8').catch(() => undefined);
    if (onDisk === undefined || onDisk === file.text) return;
    let edited: ConfigFile;
    try {
      edited = parseFile(onDisk, configPath);
    } catch (error) {
      log.warn(
        { err: error },
        'config file was edited outside the gateway and no longer parses; the next change replaces it',
      );
      return;
    }
    const next = moveSecretsOut(edited, secrets, configPath);
    if (next.file !== edited) await save(next);
    else file = edited;
    await commit('external edit');
  }

  async function persist(
    next: Prepared,
    config: GatewayConfig,
    sections: string[],
    message: string,
  ): Promise<ConfigChangeResult> {
    const previousText = file.text;
    const previousFile = file;
    await save(next);
    let sha: string | null;
    try {
      sha = await commit(message);
    } catch (error) {
      // Never half-apply: the file goes back to what the running gateway uses.
      await writeAtomically(configPath, previousText);
      file = previousFile;
      throw error;
    }
    const previous = effective;
    effective = config;
    log.info({ sections, sha }, message);
    events?.emit('config:patched', { sections, sha });
    const change: ConfigChange = { config, previous, sections, sha, message };
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (error) {
        log.error({ err: error }, 'config change listener failed');
      }
    }
    return { sha, sections };
  }

  function candidateOf(edit: ConfigEdit): RawConfig {
    const next = edit(structuredClone(file.raw), effective);
    const kept = keepSecrets(next, file.raw, env, secrets);
    if (!isPlainObject(kept)) throw new GatewayError('invalid_params', 'The config must be an object of sections');
    return kept;
  }

  async function update(edit: ConfigEdit, message: string): Promise<ConfigChangeResult> {
    return exclusive(async () => {
      await adoptExternalEdit();
      const candidate = candidateOf(edit);
      const sections = changedSections(file.raw, candidate);
      if (sections.length === 0) return { sha: await head(), sections: [] };
      let config: GatewayConfig;
      try {
        config = validate(candidate, 'the changed config');
      } catch (error) {
        throw asInvalidParams(error);
      }
      const externalized = externalizeSecrets(candidate, secrets);
      const nextFile = parseFile(renderDocument(file.doc, externalized.raw), configPath);
      return persist(
        { file: nextFile, secrets: externalized.moved === 0 ? secrets : externalized.secrets },
        config,
        sections,
        message,
      );
    });
  }

  /** The file on disk now, applied whole when it is valid; our own writes read back unchanged and do nothing. */
  function reloadFromDisk(): Promise<ConfigChangeResult | undefined> {
    return exclusive(async () => {
      const onDisk = await readFile(configPath, 'utf8').catch(() => undefined);
      if (onDisk === undefined || onDisk === file.text) return undefined;
      let edited: ConfigFile;
      let config: GatewayConfig;
      try {
        edited = parseFile(onDisk, configPath);
        config = validate(edited.raw, configPath);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        log.warn(
          { problems: error.problems.length > 0 ? error.problems : [error.message] },
          'config file edited on disk is not valid; the running config stays',
        );
        return undefined;
      }
      const sections = changedSections(file.raw, edited.raw);
      return persist(moveSecretsOut(edited, secrets, configPath), config, sections, 'edited on disk');
    });
  }

  if (deps.watchFile === true) {
    stopWatch = watchConfigFile(
      configPath,
      () => {
        reloadFromDisk().catch((error: unknown) =>
          log.error({ err: error }, 'config file edited on disk could not be applied'),
        );
      },
      log,
    );
  }

  return {
    get: () => effective,
    reloadFromDisk,
    async close() {
      stopWatch();
      listeners.clear();
    },
    raw: (section) => structuredClone(section === undefined ? file.raw : file.raw[section]),
    history,
    update,
    ...configEditMethods({ update, candidateOf, validate }),
    rollback(sha) {
      return exclusive(async () => {
        const rolledBackTo = await history.resolve(sha);
        const restoredText = await history.show(rolledBackTo);
        let restored: ConfigFile;
        let config: GatewayConfig;
        try {
          restored = parseFile(restoredText, `commit ${rolledBackTo}`);
          config = validate(restored.raw, `commit ${rolledBackTo}`);
        } catch (error) {
          throw asInvalidParams(error, `Cannot roll back to ${rolledBackTo.slice(0, 7)}`);
        }
        await adoptExternalEdit();
        if (restoredText === file.text) return { sha: await head(), rolledBackTo };
        const sections = changedSections(file.raw, restored.raw);
        const result = await persist(
          moveSecretsOut(restored, secrets, configPath),
          config,
          sections,
          `config.rollback to ${rolledBackTo.slice(0, 7)}`,
        );
        return { sha: result.sha, rolledBackTo };
      });
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
