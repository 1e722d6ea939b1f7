// Holds the effective config and changes it safely: edit the raw YAML document, validate the whole result,
// write the file atomically, commit it, then swap the effective config and tell subscribers.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { Document, parseDocument } from 'yaml';
import { GatewayError } from '../errors.js';
import type { EventBus } from '../obs/event-bus.js';
import { changedSections, getPath, isPlainObject, keepSecrets, mergePatch, renderDocument, setPath, splitKey, type RawConfig } from './config-edit.js';
import type { ConfigHistory } from './history.js';
import { ConfigError, substituteEnv, validateConfig } from './load.js';
import { configSchema, type GatewayConfig } from './schema.js';

export type { RawConfig } from './config-edit.js';

/** The config's top-level sections, in schema order. */
export const CONFIG_SECTIONS: readonly string[] = configSchema.keyof().options;

export interface ConfigChange {
  config: GatewayConfig;
  previous: GatewayConfig;
  /** Top-level sections whose raw value changed. */
  sections: string[];
  /** The commit holding the change; null when git is unavailable. */
  sha: string | null;
  message: string;
}

export interface ConfigChangeResult {
  /** HEAD after the change (unchanged for a no-op); null when git is unavailable. */
  sha: string | null;
  /** Empty when the change was a no-op (nothing written, nothing committed). */
  sections: string[];
}

export type ConfigCheck = { valid: true; config: GatewayConfig } | { valid: false; errors: string[] };

/** Gets a deep copy of the raw document (before ${ENV} substitution) and the effective config; returns the next raw document. */
export type ConfigEdit = (raw: RawConfig, current: GatewayConfig) => unknown;

export interface ConfigStore {
  get(): GatewayConfig;
  /** The file's content before ${ENV} substitution and defaults (a deep copy): one section, or all of it. */
  raw(section?: string): unknown;
  /** RFC 7386 merge patch of the raw document. */
  patch(patch: RawConfig, message?: string): Promise<ConfigChangeResult>;
  /** Replaces the whole document. */
  apply(document: RawConfig, message?: string): Promise<ConfigChangeResult>;
  /** Sets one dotted key of a section (`null` removes it); `previous` is the raw value it replaced. */
  set(section: string, key: string, value: unknown): Promise<ConfigChangeResult & { previous: unknown }>;
  /** Any edit, under the write lock; every other change is one of these. */
  update(edit: ConfigEdit, message: string): Promise<ConfigChangeResult>;
  /** Runs an edit and full validation without writing anything (dry runs). */
  check(edit: ConfigEdit): ConfigCheck;
  /** Restores the file as it was at `sha`, as a new commit. */
  rollback(sha: string): Promise<{ sha: string | null; rolledBackTo: string }>;
  readonly history: ConfigHistory;
  /** Called after every applied change; returns the function that unsubscribes. */
  onChange(listener: (change: ConfigChange) => void): () => void;
}

export interface ConfigStoreDeps {
  configPath: string;
  history: ConfigHistory;
  env: NodeJS.ProcessEnv;
  log: Logger;
  events?: EventBus;
  /** Applied to every validated config before it takes effect (the CLI's --port and --host). */
  overrides?: (config: GatewayConfig) => GatewayConfig;
  /** Written as the file (mode 0600) when none exists yet; without it a missing file is a ConfigError. */
  initialDocument?: RawConfig;
}

function parseRaw(text: string, source: string): { doc: Document; raw: RawConfig } {
  const doc = parseDocument(text);
  const firstError = doc.errors[0];
  if (firstError !== undefined) throw new ConfigError(`Invalid YAML in ${source}: ${firstError.message}`);
  const raw: unknown = doc.toJS() ?? {};
  if (!isPlainObject(raw)) throw new ConfigError(`Invalid configuration in ${source}: (root): expected a mapping of sections`, ['(root): expected a mapping of sections']);
  return { doc, raw };
}

function asInvalidParams(error: unknown, prefix = 'Invalid config'): unknown {
  if (!(error instanceof ConfigError)) return error;
  const param = error.problems[0]?.split(': ')[0];
  const text = error.problems.length > 0 ? error.problems.join('; ') : error.message;
  return new GatewayError('invalid_params', `${prefix}: ${text}`, param === undefined ? {} : { param });
}

/** Temp file plus rename in the same directory, so a reader sees the old file or the new one, never half. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.chmod(0o600);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

async function readConfigText(configPath: string, initialDocument: RawConfig | undefined): Promise<string> {
  try {
    return await readFile(configPath, 'utf8');
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    if (code !== 'ENOENT' || initialDocument === undefined) throw new ConfigError(`Cannot read config file ${configPath}: ${code}`);
  }
  const text = new Document(initialDocument).toString();
  await mkdir(dirname(configPath), { recursive: true, mode: 0o700 });
  await writeAtomically(configPath, text);
  return text;
}

export async function createConfigStore(deps: ConfigStoreDeps): Promise<ConfigStore> {
  const { configPath, history, env, log, events, overrides = (config) => config, initialDocument } = deps;
  const listeners = new Set<(change: ConfigChange) => void>();
  let lock: Promise<unknown> = Promise.resolve();

  let text = await readConfigText(configPath, initialDocument);
  let { doc, raw } = parseRaw(text, configPath);
  let effective = validate(raw, configPath);

  let isHistoryAvailable = await history.isAvailable();
  if (!isHistoryAvailable) log.warn('git is not installed: config changes are applied but not versioned');
  else {
    await history.init().catch((error: unknown) => {
      isHistoryAvailable = false;
      log.warn({ err: error }, 'config history could not be initialised: config changes are applied but not versioned');
    });
  }

  function validate(candidate: RawConfig, source: string): GatewayConfig {
    return overrides(validateConfig(substituteEnv(candidate, env, new Set()), source));
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
   * The file changed behind our back (an editor, a restore): keep that version in history and, when it is
   * still a readable document, make it the base of the next edit rather than silently overwriting it.
   */
  async function adoptExternalEdit(): Promise<void> {
    const onDisk = await readFile(configPath, 'utf8').catch(() => undefined);
    if (onDisk === undefined || onDisk === text) return;
    await commit('external edit');
    try {
      ({ doc, raw } = parseRaw(onDisk, configPath));
      text = onDisk;
    } catch (error) {
      log.warn({ err: error }, 'config file was edited outside the gateway and no longer parses; the next change replaces it');
    }
  }

  async function persist(nextText: string, next: { doc: Document; raw: RawConfig }, config: GatewayConfig, message: string): Promise<ConfigChangeResult> {
    const previousText = text;
    const sections = changedSections(raw, next.raw);
    await writeAtomically(configPath, nextText);
    let sha: string | null;
    try {
      sha = await commit(message);
    } catch (error) {
      // Never half-apply: the file goes back to what the running gateway uses.
      await writeAtomically(configPath, previousText);
      throw error;
    }
    const previous = effective;
    ({ doc, raw } = next);
    text = nextText;
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
    const next = edit(structuredClone(raw), effective);
    const kept = keepSecrets(next, raw, env);
    if (!isPlainObject(kept)) throw new GatewayError('invalid_params', 'The config must be an object of sections');
    return kept;
  }

  async function update(edit: ConfigEdit, message: string): Promise<ConfigChangeResult> {
    return exclusive(async () => {
      await adoptExternalEdit();
      const candidate = candidateOf(edit);
      if (changedSections(raw, candidate).length === 0) return { sha: await head(), sections: [] };
      let config: GatewayConfig;
      try {
        config = validate(candidate, 'the changed config');
      } catch (error) {
        throw asInvalidParams(error);
      }
      const nextText = renderDocument(doc, candidate);
      return persist(nextText, parseRaw(nextText, configPath), config, message);
    });
  }

  return {
    get: () => effective,
    raw: (section) => structuredClone(section === undefined ? raw : raw[section]),
    history,
    update,
    patch: (patch, message = 'config.patch') => update((current) => mergePatch(current, patch), message),
    apply: (document, message = 'config.apply') => update(() => document, message),
    async set(section, key, value) {
      const segments = splitKey(section, key);
      let previous: unknown;
      const result = await update((current) => {
        previous = getPath(current, segments);
        return setPath(current, segments, value);
      }, `config.set ${segments.join('.')}`);
      return { ...result, previous };
    },
    check(edit) {
      const candidate = candidateOf(edit);
      try {
        return { valid: true, config: validate(candidate, 'the changed config') };
      } catch (error) {
        if (error instanceof ConfigError) return { valid: false, errors: error.problems.length > 0 ? error.problems : [error.message] };
        throw error;
      }
    },
    rollback(sha) {
      return exclusive(async () => {
        const rolledBackTo = await history.resolve(sha);
        const restoredText = await history.show(rolledBackTo);
        let restored: { doc: Document; raw: RawConfig };
        let config: GatewayConfig;
        const prefix = `Cannot roll back to ${rolledBackTo.slice(0, 7)}`;
        try {
          restored = parseRaw(restoredText, `commit ${rolledBackTo}`);
          config = validate(restored.raw, `commit ${rolledBackTo}`);
        } catch (error) {
          throw asInvalidParams(error, prefix);
        }
        await adoptExternalEdit();
        if (restoredText === text) return { sha: await head(), rolledBackTo };
        const result = await persist(restoredText, restored, config, `config.rollback to ${rolledBackTo.slice(0, 7)}`);
        return { sha: result.sha, rolledBackTo };
      });
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
