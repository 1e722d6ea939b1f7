// The ConfigRevisions under storage: postgres: the database's newest revision is the config of every replica. A change
// is appended as the next revision (stale when another replica wrote first); each replica hears of a new revision
// at once through the port's announcements, or at the next poll. The file only seeds an empty database and gives
// this replica's own sections (how it reaches the database and Redis), which revisions never hold.
import { isDeepStrictEqual } from 'node:util';
import { basename, dirname, join } from 'node:path';
import { GatewayError, replicaLocalSection } from '../errors.js';
import { parseFile, readConfigText } from './config-document.js';
import type { RawConfig } from './config-edit.js';
import { asInvalidParams } from './config-error.js';
import type { ConfigRevisions, ValidateConfig } from './config-revisions.js';
import type { DatabaseConfigStoreDeps } from './config-store-types.js';
import { createDatabaseHistory, resolveRevision } from './database-history.js';
import type { ConfigRevision } from './database-revision-port.js';
import { CONFIG_LIMITS } from './limits.js';
import { substituteReferences } from './load.js';
import { configSchema } from './schema.js';
import { readSecrets, type SecretValues } from './secrets-file.js';
import { externalizeSecrets } from './secrets.js';

/** Sections each replica reads from its own file: how it reaches the database and Redis. Never stored in a revision. */
const REPLICA_SECTIONS = ['storage', 'coordination'] as const;

export interface DatabaseRevisionsDeps extends Omit<DatabaseConfigStoreDeps, 'events' | 'overrides'> {
  validate: ValidateConfig;
}

function withoutLocal(document: RawConfig): RawConfig {
  return Object.fromEntries(
    Object.entries(document).filter(([name]) => !(REPLICA_SECTIONS as readonly string[]).includes(name)),
  );
}

/** Reads the newest revision, or seeds revision 1 from the file (its secrets moved into the database) when none. */
export async function openDatabaseRevisions(deps: DatabaseRevisionsDeps): Promise<ConfigRevisions> {
  const { revisions: port, configPath, author, env, log, validate } = deps;
  const { secretsPath = join(dirname(configPath), 'secrets.yaml'), pollMs = CONFIG_LIMITS.revisionPollMs } = deps;
  const fileRaw = parseFile((await readConfigText(configPath, deps.initialDocument)).text, configPath).raw;
  const local: RawConfig = Object.fromEntries(
    REPLICA_SECTIONS.filter((name) => Object.hasOwn(fileRaw, name)).map((name) => [name, fileRaw[name]]),
  );
  const withLocal = (document: RawConfig): RawConfig => ({ ...withoutLocal(document), ...structuredClone(local) });

  let secrets: SecretValues = await port.secrets();

  async function seed(): Promise<ConfigRevision> {
    const known = new Map([...(await readSecrets(secretsPath)), ...secrets]);
    validate(fileRaw, configPath, known);
    const externalized = externalizeSecrets(withoutLocal(fileRaw), known);
    const newSecrets = new Map([...externalized.secrets].filter(([name]) => !secrets.has(name)));
    const outcome = await port.append({
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
    secrets = await port.secrets();
    const latest = await port.latest();
    if (latest === undefined)
      throw new GatewayError('internal', 'config revision 1 was written by another replica but cannot be read');
    return latest;
  }

  const newest = await port.latest();
  // A revision another replica has just seeded comes with its secrets: read them after the revision, not before.
  if (newest !== undefined) secrets = await port.secrets();
  let head: ConfigRevision = newest ?? (await seed());
  /** The newest revision with the file's own sections: what edits start from and config.raw shows. */
  let view = withLocal(head.document);
  let refusedRevision = 0;

  /** A newer revision than this replica's, taken in (even when it then does not validate here). */
  async function pull() {
    if ((await port.latestNumber()) <= head.revision) return undefined;
    const next = await port.latest();
    if (next === undefined || next.revision <= head.revision) return undefined;
    secrets = await port.secrets();
    head = next;
    view = withLocal(next.document);
    return {
      document: view,
      source: `config revision ${next.revision}`,
      accept: async () => ({
        sha: next.sha,
        message: next.message,
        isRemote: true as const,
        logText: `applied config revision ${next.revision}: ${next.message}`,
        logFields: { revision: next.revision, author: next.author },
      }),
      refuse(problems: string[]) {
        if (refusedRevision !== next.revision)
          log.error(
            { revision: next.revision, problems },
            'config revision is not valid on this replica (its environment differs?); the running config stays',
          );
        refusedRevision = next.revision;
      },
    };
  }

  return {
    current: () => ({ document: view, secrets, source: `config revision ${head.revision}` }),
    head: async () => head.sha,
    beforeChange: pull,
    pull,
    /** A replica section the edit changes is refused; one it leaves out stays the file's. */
    prepare(candidate, effective) {
      for (const name of REPLICA_SECTIONS) {
        if (candidate[name] === undefined) continue;
        let resolved: unknown;
        try {
          resolved = substituteReferences(candidate[name], { env, secrets }, 'the changed config', [name]);
        } catch (error) {
          throw asInvalidParams(error);
        }
        const given = configSchema.shape[name].safeParse(resolved);
        if (!given.success || !isDeepStrictEqual(given.data, effective[name])) throw replicaLocalSection(name);
      }
      return withLocal(candidate);
    },
    async write(candidate, message) {
      const externalized = externalizeSecrets(withoutLocal(candidate), secrets);
      const newSecrets = new Map([...externalized.secrets].filter(([name]) => !secrets.has(name)));
      const outcome = await port.append({
        base: head.revision,
        document: externalized.raw,
        message,
        author,
        newSecrets,
      });
      if (!outcome.ok) return 'stale';
      secrets = externalized.secrets;
      head = outcome.revision;
      view = withLocal(head.document);
      return { sha: head.sha, message, logFields: { revision: head.revision, author: head.author } };
    },
    async read(ref) {
      const target = await resolveRevision(port, ref);
      return { sha: target.sha, document: target.document };
    },
    history: createDatabaseHistory(port, basename(configPath)),
    async watch(onChange) {
      const stopListening = await port.listen((revision) => {
        if (revision > head.revision) onChange();
      });
      const poll = setInterval(onChange, pollMs);
      poll.unref();
      return async () => {
        clearInterval(poll);
        await stopListening();
      };
    },
    close: () => port.close(),
  };
}
