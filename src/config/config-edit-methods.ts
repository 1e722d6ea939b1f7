// The ConfigStore methods both stores (config.yaml under git, revisions in PostgreSQL) build the same way from their
// own `update`, `candidateOf` and `validate`: patch, apply, set, check and a section edited as YAML text.
import { asInvalidParams, ConfigError } from './config-error.js';
import { changedSections, getPath, mergePatch, setPath, splitKey, type RawConfig } from './config-edit.js';
import { parseSectionYaml, sectionYamlText, withLine } from './config-edit-yaml.js';
import type { SectionLayout, StoredConfig } from './config-revisions.js';
import type { ConfigChangeResult, ConfigEdit, ConfigMessage, ConfigStore } from './config-store-types.js';
import type { GatewayConfig } from './schema.js';

export interface ConfigEditCore {
  update(edit: ConfigEdit, message: ConfigMessage, layout?: SectionLayout): Promise<ConfigChangeResult>;
  /** The document an edit would produce, not validated. */
  candidateOf(edit: ConfigEdit): RawConfig;
  validate(candidate: RawConfig, source: string): GatewayConfig;
  /** The version edits start from (with the file's text where there is a file). */
  current(): StoredConfig;
}

export function configEditMethods({
  update,
  candidateOf,
  validate,
  current,
}: ConfigEditCore): Pick<ConfigStore, 'patch' | 'apply' | 'set' | 'check' | 'sectionYaml' | 'setSectionYaml'> {
  return {
    patch: (patch, message = 'config.patch') => update((current) => mergePatch(current, patch), message),
    apply: (document, message = 'config.apply') => update(() => document, message),
    async set(section, key, value, message) {
      const segments = splitKey(section, key);
      let previous: unknown;
      const result = await update(
        (current) => {
          previous = getPath(current, segments);
          return setPath(current, segments, value);
        },
        message ?? `config.set ${segments.join('.')}`,
      );
      return { ...result, previous };
    },
    sectionYaml(section) {
      const { document, text } = current();
      return sectionYamlText(text, section, document[section]);
    },
    async setSectionYaml(section, text, { message, dryRun = false }) {
      const parsed = parseSectionYaml(text);
      // An empty text removes the section: its defaults apply.
      const edit: ConfigEdit = (raw) => {
        const next = { ...raw, [section]: parsed.value };
        if (parsed.value === null) delete next[section];
        return next;
      };
      try {
        if (!dryRun) return await update(edit, message, { section, texts: [text] });
        const candidate = candidateOf(edit);
        try {
          validate(candidate, 'the changed config');
        } catch (error) {
          throw asInvalidParams(error);
        }
        return { sha: null, sections: changedSections(current().document, candidate), dryRun: true };
      } catch (error) {
        throw withLine(error, section, parsed);
      }
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
