// Configuration: schema and defaults, loading with ${ENV} substitution in secret and URL fields, first-run creation, redaction.
export * from './schema.js';
export {
  DEFAULT_POSTGRES_MAX_CONNECTIONS,
  redactUrlPassword,
  storageConfigSchema,
  type StorageConfig,
} from './storage-schema.js';
export { ConfigError } from './config-error.js';
export {
  describeMissingReference,
  loadConfigFile,
  parseConfigText,
  validateConfig,
  formatIssues,
  formatPath,
  resolveText,
  substituteReferences,
  type LoadedConfig,
  type ReferenceValues,
} from './load.js';
export {
  MISPLACED_REFERENCE,
  REFERENCE_FIELDS,
  referenceFieldAt,
  showSecretReferences,
  type ReferenceField,
} from './reference-fields.js';
export { ensureConfigFile, generateSecret, type FirstRunResult } from './first-run.js';
export {
  CREDENTIAL_KEY_PATTERN,
  CREDENTIAL_KEYS,
  isSecretKey,
  LOG_REDACT_PATHS,
  redactConfig,
  redactSecrets,
  REDACTED,
  SECRET_KEYS,
} from './redact.js';
export { readSecrets, writeSecrets, type SecretValues } from './secrets-file.js';
export { externalizeSecrets, isLiteralSecret, secretReference } from './secrets.js';
export {
  resolvePaths,
  packageInfo,
  securePrivateDataDir,
  DATA_DIR_MODE,
  DATA_FILE_MODE,
  type GatewayPaths,
  type PackageInfo,
} from './paths.js';
export { changedRestartKeys, RESTART_KEYS } from './restart-keys.js';
export {
  createConfigStore,
  createDatabaseConfigStore,
  CONFIG_SECTIONS,
  type ConfigStore,
  type ConfigStoreDeps,
  type ConfigChange,
  type ConfigChangeResult,
  type ConfigCheck,
  type ConfigEdit,
  type ConfigHistoryReader,
  type DatabaseConfigStoreDeps,
  type RawConfig,
} from './config-store.js';
export {
  createGitHistory,
  type ConfigHistory,
  type ConfigHistoryEntry,
  type ConfigGcResult,
  type GitHistoryDeps,
} from './history.js';
export { FORBIDDEN_KEYS, findForbiddenKey, isForbiddenKey, safeKeySchema, type FoundKey } from './object-keys.js';
export type { HistoryRewriteResult } from './history-rewrite.js';
export type {
  ConfigRevision,
  ConfigRevisionAppend,
  ConfigRevisionAppendOutcome,
  ConfigRevisionPort,
  ConfigRevisionSummary,
} from './database-revision-port.js';
