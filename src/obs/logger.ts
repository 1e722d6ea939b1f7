// The structured logger (pino) and the paths it redacts: tokens, and every secret key of the config.
import { pino, type Logger, type DestinationStream } from 'pino';
import { LOG_REDACT_PATHS } from '../config/index.js';

export type { Logger } from 'pino';

/**
 * Every log path that may carry a credential: the transport's own (headers, the token query parameter) and
 * the config's secret keys from the one list in config/redact.ts. Message bodies are never logged at all.
 */
export const REDACT_PATHS = LOG_REDACT_PATHS;

export interface LoggerOptions {
  level?: string;
  destination?: DestinationStream;
}

export function createLogger({ level = 'info', destination }: LoggerOptions = {}): Logger {
  const options = {
    level,
    base: { service: 'agent-gateway' },
    redact: { paths: [...REDACT_PATHS], censor: '***' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
