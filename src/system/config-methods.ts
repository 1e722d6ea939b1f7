// config.* methods (admin): read, patch, apply and version the config file through the ConfigStore.
import { z } from 'zod';
import {
  CONFIG_SECTIONS,
  configSchema,
  findForbiddenKey,
  isForbiddenKey,
  redactSecrets,
  showSecretReferences,
  type ConfigStore,
  type GatewayConfig,
} from '../config/index.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../server/index.js';
import { defineMethod, noParams } from '../rpc/index.js';

const section = configSchema.keyof();
const commitSha = z.string().regex(/^[0-9a-fA-F]{4,64}$/, 'must be a commit hash (4 to 64 hex digits)');

/**
 * Checks a value taken into the config as given, on the raw input before zod builds an object from it, so a
 * `__proto__` key is refused rather than silently dropped, and nothing downstream walks an unbounded depth.
 */
function checkConfigValue(value: unknown, ctx: z.core.$RefinementCtx, path: (string | number)[] = []): void {
  if (exceedsJsonDepth(value, MAX_JSON_DEPTH)) {
    ctx.addIssue({ code: 'custom', path, message: `nests deeper than ${MAX_JSON_DEPTH} levels`, input: value });
    return;
  }
  const found = findForbiddenKey(value);
  if (found !== undefined)
    ctx.addIssue({
      code: 'custom',
      path: [...path, ...found.segments],
      message: `the key '${found.key}' is not allowed`,
      input: value,
    });
}

const configValue = z.unknown().superRefine((value, ctx) => checkConfigValue(value, ctx));

/** config.patch and config.apply take the config itself as params; it is validated as a whole afterwards. */
const configDocument = z
  .unknown()
  .superRefine((document, ctx) => {
    if (typeof document !== 'object' || document === null || Array.isArray(document)) return;
    for (const [name, value] of Object.entries(document)) {
      if (isForbiddenKey(name))
        ctx.addIssue({ code: 'custom', path: [name], message: `the key '${name}' is not allowed`, input: document });
      else checkConfigValue(value, ctx, [name]);
    }
  })
  .pipe(z.record(z.string(), z.unknown()));

/** The longest YAML text of one section config.setSectionYaml takes, in characters. */
const SECTION_YAML_MAX_CHARS = 262_144;

const HISTORY_DEFAULT_LIMIT = 20;
const HISTORY_MAX_LIMIT = 1000;

/** A commit message naming the method, the token that called it and the sections it changed. */
const byActor =
  (method: string, clientId: string) =>
  (sections: readonly string[]): string =>
    `${method} by ${clientId}: ${sections.join(', ')}`;

export function configMethods({ config }: { config: ConfigStore }) {
  /** The effective config as read paths show it: secrets "***", a URL's ${secret:NAME} reference as written. */
  const shown = (): GatewayConfig => showSecretReferences(redactSecrets(config.get()), config.raw());
  return [
    defineMethod({
      name: 'config.read',
      scope: 'admin',
      summary:
        'The effective config (or one section) with token secrets, API keys and the webhook secret shown as "***", a URL naming a secret as written.',
      params: z.strictObject({ section: section.optional() }),
      handler: ({ section: name }) => {
        const effective = shown();
        if (name === undefined) return { config: effective, sections: CONFIG_SECTIONS };
        return effective[name] ?? null;
      },
    }),
    defineMethod({
      name: 'config.get',
      scope: 'admin',
      summary:
        'One section as written in the file (${ENV} references intact, not redacted), or the whole effective config redacted.',
      params: z.strictObject({ section: section.optional() }),
      handler: ({ section: name }) => {
        if (name === undefined) return shown();
        return config.raw(name) ?? null;
      },
    }),
    defineMethod({
      name: 'config.set',
      scope: 'admin',
      summary: 'Sets one dotted key of a section (null removes it); answers the value it replaced, secrets redacted.',
      params: z.strictObject({ section, key: z.string().min(1), value: configValue }),
      handler: async ({ section: name, key, value }, ctx) => {
        const result = await config.set(name, key, value, byActor('config.set', ctx.caller.clientId));
        const previous = redactSecrets({ [key.split('.').at(-1) ?? key]: result.previous });
        const redacted = Object.values(previous)[0];
        return redacted === undefined
          ? { ok: true, sha: result.sha }
          : { ok: true, previous: redacted, sha: result.sha };
      },
    }),
    defineMethod({
      name: 'config.patch',
      scope: 'admin',
      summary: 'Deep-merges the params into the config (null removes a key); "***" keeps a stored secret. One commit.',
      params: configDocument,
      handler: async (patch, ctx) => {
        const { sha, sections } = await config.patch(patch, byActor('config.patch', ctx.caller.clientId));
        return { ok: true, sha, sections };
      },
    }),
    defineMethod({
      name: 'config.apply',
      scope: 'admin',
      summary: 'Replaces the whole config with the params; "***" keeps a stored secret. One commit.',
      params: configDocument,
      handler: async (document, ctx) => {
        const { sha, sections } = await config.apply(document, byActor('config.apply', ctx.caller.clientId));
        return { ok: true, sha, sections };
      },
    }),
    defineMethod({
      name: 'config.getSectionYaml',
      scope: 'admin',
      summary:
        'One section as YAML text to edit: as written in the file (comments kept) where it can, secret values "***".',
      params: z.strictObject({ section }),
      handler: ({ section: name }) => ({ section: name, yaml: config.sectionYaml(name) }),
    }),
    defineMethod({
      name: 'config.setSectionYaml',
      scope: 'admin',
      summary: `Replaces one section with its YAML text (at most ${SECTION_YAML_MAX_CHARS} characters; empty removes it), validated with the whole config; the file keeps that text and the other sections as written. "***" keeps a stored secret. Errors are -32602 naming the key and line. dryRun validates only. One commit.`,
      params: z.strictObject({
        section,
        yaml: z.string().max(SECTION_YAML_MAX_CHARS),
        dryRun: z.boolean().optional(),
      }),
      handler: async ({ section: name, yaml, dryRun = false }, ctx) => {
        const { sha, sections } = await config.setSectionYaml(name, yaml, {
          message: byActor('config.setSectionYaml', ctx.caller.clientId),
          dryRun,
        });
        return dryRun ? { ok: true, dryRun: true, sections } : { ok: true, sha, sections };
      },
    }),
    defineMethod({
      name: 'config.schema',
      scope: 'admin',
      summary: 'JSON Schema (input side, defaults included) of the config or of one section.',
      params: z.strictObject({ section: section.optional() }),
      handler: ({ section: name }) => {
        const target = name === undefined ? configSchema : configSchema.shape[name];
        const schema = z.toJSONSchema(target, { io: 'input', unrepresentable: 'any' });
        return name === undefined
          ? { schema, sections: CONFIG_SECTIONS }
          : { schema, sections: CONFIG_SECTIONS, section: name };
      },
    }),
    defineMethod({
      name: 'config.diff',
      scope: 'admin',
      summary:
        'Unified diff of a commit against its parent; without sha, the file against HEAD or else the last commit.',
      params: z.strictObject({ sha: commitSha.optional() }),
      handler: async ({ sha }) => ({ diff: await config.history.diff(sha) }),
    }),
    defineMethod({
      name: 'config.history',
      scope: 'admin',
      summary: `Commits of the config file, newest first (limit default ${HISTORY_DEFAULT_LIMIT}, at most ${HISTORY_MAX_LIMIT}).`,
      params: z.strictObject({ limit: z.number().int().min(1).max(HISTORY_MAX_LIMIT).optional() }),
      handler: async ({ limit = HISTORY_DEFAULT_LIMIT }) => ({ entries: await config.history.history(limit) }),
    }),
    defineMethod({
      name: 'config.rollback',
      scope: 'admin',
      summary: 'Restores the config file as it was at a commit, as a new commit, and applies it.',
      params: z.strictObject({ sha: commitSha }),
      handler: async ({ sha }) => {
        const result = await config.rollback(sha);
        return { ok: true, sha: result.sha, rolledBackTo: result.rolledBackTo };
      },
    }),
    defineMethod({
      name: 'config.gc',
      scope: 'admin',
      summary: 'Packs the config history repository and prunes unreachable objects.',
      params: noParams,
      handler: () => config.history.gc(),
    }),
  ];
}
