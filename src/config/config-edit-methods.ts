// The ConfigStore methods both stores (config.yaml under git, revisions in PostgreSQL) build the same way from their
// own `update`, `candidateOf` and `validate`: patch, apply, set and check.
import { ConfigError } from './config-error.js';
import { getPath, mergePatch, setPath, splitKey, type RawConfig } from './config-edit.js';
import type { ConfigEdit, ConfigStore } from './config-store-types.js';
import type { GatewayConfig } from './schema.js';

export interface ConfigEditCore {
  update: ConfigStore['update'];
  /** The document an edit would produce, not validated. */
  candidateOf(edit: ConfigEdit): RawConfig;
  validate(candidate: RawConfig, source: string): GatewayConfig;
}

export function configEditMethods({
  update,
  candidateOf,
  validate,
}: ConfigEditCore): Pick<ConfigStore, 'patch' | 'apply' | 'set' | 'check'> {
  return {
    patch: (patch, message = 'config.patch') => update((current) => mergePatch(current, patch), message),
    apply: (document, message = 'config.apply') => update(() => document, message),
    async set(section, key, value) {
      const segments = splitKey(section, key);
      let previous: unknown;
      const result = await update(
        (current) => {
          previous = getPath(current, segments);
          return setPath(current, segments, value);
        },
        `config.set ${segments.join('.')}`,
      );
      return { ...result, previous };
    },
    check(edit) {
      const candidate = candidateOf(edit);
      try {
        return { valid: true, config: validate(candidate, 'the changed config') };
      } catch (error) {
        if (error instanceof ConfigError)
          return { valid: false, errors: error.problems.length > 0 ? error.problems : [error.message] };
        throw error;
      }
    },
  };
}
