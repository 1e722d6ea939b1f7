// Configuration: schema and defaults, loading with ${ENV} substitution, first-run creation, redaction.
export * from './schema.js';
export { ConfigError, loadConfigFile, parseConfigText, validateConfig, formatIssues, formatPath, type LoadedConfig } from './load.js';
export { ensureConfigFile, generateSecret, type FirstRunResult } from './first-run.js';
export { redactConfig, redactSecrets, REDACTED } from './redact.js';
export { resolvePaths, packageInfo, securePrivateDataDir, DATA_DIR_MODE, DATA_FILE_MODE, type GatewayPaths, type PackageInfo } from './paths.js';
export { createConfigStore, CONFIG_SECTIONS, type ConfigStore, type ConfigStoreDeps, type ConfigChange, type ConfigChangeResult, type ConfigCheck, type ConfigEdit, type RawConfig } from './config-store.js';
export { createGitHistory, type ConfigHistory, type ConfigHistoryEntry, type ConfigGcResult, type GitHistoryDeps } from './history.js';
