// The structured logger (pino) and the paths it redacts: tokens, and every secret key of the config.
import { pino, type Logger, type DestinationStream } from 'pino';
import { LOG_REDACT_PATHS } from '../config/index.js';

export type { Logger } from 'pino';

/**
 * Every log path that may carry a credential: the transport's own (headers, the token query parameter) and
 * the config's secret keys from the one list in config/redact.ts. Message bodies are never logged at all.
 */
export const REDACT_PATHS = LOG_REDACT_PATHS;

/** pino's level names, most severe first; `silent` logs nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(text: string): text is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(text);
}

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
    // "level":"warn" rather than pino's 40: a reader of the JSON (or a log shipper's filter) needs no table.
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
