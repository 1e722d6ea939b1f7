// Configuration: schema and defaults, loading with ${ENV} substitution in secret and URL fields, first-run creation, redaction.
export * from './schema.js';
export { ConfigError } from './config-error.js';
export { describeMissingReference, loadConfigFile, parseConfigText, validateConfig, formatPath } from './load.js';
export { showSecretReferences } from './reference-fields.js';
export { ensureConfigFile, generateSecret, type FirstRunResult } from './first-run.js';
export {
  CREDENTIAL_KEY_PATTERN,
  CREDENTIAL_KEYS,
  LOG_REDACT_PATHS,
  redactConfig,
  redactSecrets,
  REDACTED,
  SECRET_KEYS,
} from './redact.js';
export { readSecrets } from './secrets-file.js';
export { resolvePaths, packageInfo, securePrivateDataDir, type GatewayPaths } from './paths.js';
export { changedRestartKeys } from './restart-keys.js';
export {
  createConfigStore,
  createDatabaseConfigStore,
  CONFIG_SECTIONS,
  type ConfigStore,
  type ConfigStoreDeps,
  type ConfigChange,
  type RawConfig,
} from './config-store.js';
export { createGitHistory, type ConfigHistory } from './history.js';
export { findForbiddenKey, isForbiddenKey, safeKeySchema } from './object-keys.js';
export type { ConfigRevision, ConfigRevisionPort, ConfigRevisionSummary } from './database-revision-port.js';
export type { ChannelConfig, TelegramChannelConfig, SlackChannelConfig } from './channels-schema.js';
export type { MetricsConfig } from './metrics-schema.js';
