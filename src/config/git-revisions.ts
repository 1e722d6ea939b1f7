// The ConfigRevisions of config.yaml in the data dir: the file is the current version (comments and layout kept),
// secrets.yaml beside it holds the secret values, and git commits every version. Hand edits are committed as they
// are found, and applied live when the file is watched.
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { moveSecretsOut, parseFile, readConfigText, type ConfigFile, type Prepared } from './config-document.js';
import { renderDocument } from './config-edit.js';
import { yamlTextAs } from './config-edit-yaml.js';
import { asInvalidParams, ConfigError, problemsOf } from './config-error.js';
import { removeOrphanTempFiles, writeAtomically } from './config-file.js';
import type { ConfigRevisions, ConfigVersion, ValidateConfig, WrittenConfig } from './config-revisions.js';
import type { ConfigStoreDeps } from './config-store-types.js';
import { watchConfigFile } from './file-watch.js';
import { withSectionText } from './section-splice.js';
import { readSecrets, writeSecrets, type SecretValues } from './secrets-file.js';
import { externalizeSecrets, externalizeSecretsInText } from './secrets.js';

export interface GitRevisionsDeps extends Pick<
  ConfigStoreDeps,
  'configPath' | 'secretsPath' | 'history' | 'log' | 'initialDocument' | 'watchFile' | 'readiesHistoryLater'
> {
  validate: ValidateConfig;
}

/**
 * Reads the file (writing `initialDocument` when there is none), refuses an invalid one before anything is written,
 * moves its literal secrets to secrets.yaml and readies the history (scrubbing secrets out of an old one first).
 */
export async function openGitRevisions(deps: GitRevisionsDeps): Promise<ConfigRevisions> {
  const { configPath, secretsPath = join(dirname(configPath), 'secrets.yaml'), history, log, validate } = deps;
  // A write killed between its temp file and the rename leaves the temp file; nothing else would ever remove it.
  const orphans = await removeOrphanTempFiles([configPath, secretsPath]);
  if (orphans.length > 0) log.info({ paths: orphans }, 'removed temp files of config writes that were interrupted');
  let secrets: SecretValues = await readSecrets(secretsPath);
  const initial = await readConfigText(configPath, deps.initialDocument);
  let file = parseFile(initial.text, configPath);
  validate(file.raw, configPath, secrets);
  let canCommit = true;

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

  // Secrets leave the file before anything is committed (DESIGN §3 "secrets and config history").
  const prepared = moveSecretsOut(file, secrets, configPath);
  if (!initial.isOnDisk || prepared.file.text !== initial.text) {
    try {
      await mkdir(dirname(configPath), { recursive: true, mode: 0o700 });
      await save(prepared);
    } catch (error) {
      if (!initial.isOnDisk) throw error;
      canCommit = false;
      log.warn(
        { err: error },
        'config file holds secrets and cannot be rewritten: config history is off so that they are never committed',
      );
    }
  }

  /** Whether commits can be made: git runs, the file holds no secret, and the history is scrubbed and initialised. */
  async function readyHistory(): Promise<boolean> {
    if (!(await history.isAvailable())) {
      log.warn('git is not installed: config changes are applied but not versioned');
      return false;
    }
    if (!canCommit) return false;
    try {
      // Scrubbed first, so that the file as it is now lands on a history that already matches it.
      if (!(await history.isSecretFree())) {
        await scrubHistory();
        await history.markSecretFree();
      }
      await history.init();
      return true;
    } catch (error) {
      log.warn({ err: error }, 'config history could not be initialised: config changes are applied but not versioned');
      return false;
    }
  }
  const historyReady = deps.readiesHistoryLater === true ? readyHistory() : Promise.resolve(await readyHistory());
  const afterReady = <T>(task: () => Promise<T>): Promise<T> => historyReady.then(task);

  const commit = async (message: string): Promise<string | null> =>
    (await historyReady) ? history.commit(message) : null;
  const head = async (): Promise<string | null> => ((await historyReady) ? history.head() : null);

  /** Writes the file and commits it; never half-applied: when the commit fails, the file goes back. */
  async function persist(next: Prepared, message: string): Promise<WrittenConfig> {
    const previous = file;
    await save(next);
    try {
      return { sha: await commit(message), message };
    } catch (error) {
      await writeAtomically(configPath, previous.text);
      file = previous;
      throw error;
    }
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

  /** The files of versions read for a rollback, so the restored file keeps its own comments and layout. */
  const restoredFiles = new WeakMap<ConfigVersion, ConfigFile>();
  const refuseEdit = (problems: string[]) =>
    log.warn({ problems }, 'config file edited on disk is not valid; the running config stays');

  return {
    current: () => ({ document: file.raw, secrets, source: configPath, text: file.text }),
    async writeSecrets(next) {
      await writeSecrets(secretsPath, next);
      secrets = next;
    },
    head,
    async beforeChange() {
      await adoptExternalEdit();
      return undefined;
    },
    /** The file on disk now, when it differs; our own writes read back unchanged and bring nothing. */
    async pull() {
      const onDisk = await readFile(configPath, 'utf8').catch(() => undefined);
      if (onDisk === undefined || onDisk === file.text) return undefined;
      let edited: ConfigFile;
      try {
        edited = parseFile(onDisk, configPath);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        refuseEdit(problemsOf(error));
        return undefined;
      }
      return {
        document: edited.raw,
        source: configPath,
        accept: () => persist(moveSecretsOut(edited, secrets, configPath), 'edited on disk'),
        refuse: refuseEdit,
      };
    },
    prepare: (candidate) => candidate,
    write(candidate, message, restoring, layout) {
      const basis = (restoring === undefined ? undefined : restoredFiles.get(restoring)) ?? file;
      const externalized = externalizeSecrets(candidate, secrets);
      const rendered = (): string => {
        const text = renderDocument(basis.doc, externalized.raw, basis.text);
        if (layout === undefined) return text;
        const bodies = [...layout.texts, yamlTextAs(layout.texts[0] ?? '', externalized.raw[layout.section])];
        return withSectionText(text, layout.section, bodies, externalized.raw);
      };
      const next = isDeepStrictEqual(externalized.raw, basis.raw) ? basis : parseFile(rendered(), configPath);
      return persist({ file: next, secrets: externalized.moved === 0 ? secrets : externalized.secrets }, message);
    },
    async read(ref) {
      const sha = await afterReady(() => history.resolve(ref));
      const text = await history.show(sha);
      let restored: ConfigFile;
      try {
        restored = parseFile(text, `commit ${sha}`);
      } catch (error) {
        throw asInvalidParams(error, `Cannot roll back to ${sha.slice(0, 7)}`);
      }
      const version: ConfigVersion = { sha, document: restored.raw };
      restoredFiles.set(version, restored);
      return version;
    },
    history: {
      history: (limit) => afterReady(() => history.history(limit)),
      diff: (sha) => afterReady(() => history.diff(sha)),
      gc: () => afterReady(() => history.gc()),
    },
    async watch(onChange) {
      if (deps.watchFile !== true) return async () => undefined;
      const stop = watchConfigFile(configPath, onChange, log);
      return async () => stop();
    },
    // A commit still under way finishes first: a process that exits mid-commit would leave git's index.lock behind.
    close: async () => {
      await historyReady;
    },
  };
}
