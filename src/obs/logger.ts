// The structured logger (pino) and the one list of paths it redacts: tokens, secrets and API keys.
import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger } from 'pino';

/** Every log path that may carry a credential; message bodies are never logged in the first place. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.query.token',
  'headers.authorization',
  'authorization',
  'token',
  'secret',
  'apiKey',
  '*.secret',
  '*.apiKey',
  '*.token',
];

export interface LoggerOptions {
  level?: string;
  destination?: DestinationStream;
}

export function createLogger({ level = 'info', destination }: LoggerOptions = {}): Logger {
  const options = {
    level,
    base: { service: 'agent-gateway' },
    redact: { paths: REDACT_PATHS, censor: '***' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
