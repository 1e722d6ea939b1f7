// How `agent-gateway start` logs: --log-level / LOG_LEVEL and --log-format / LOG_FORMAT, checked before anything starts.
import {
  createLogger,
  isLogFormat,
  isLogLevel,
  LOG_LEVELS,
  prettyDestination,
  type LogFormat,
  type Logger,
  type LogLevel,
} from '../obs/index.js';
import { CliError } from './output.js';

export interface LogSetup {
  level: LogLevel;
  format: LogFormat;
}

export interface LogFlags {
  level?: string;
  format?: string;
}

/**
 * The flag wins over the variable; without either, `info`, and the human format on a terminal, JSON lines
 * otherwise (a service manager, a pipe, a container's log collector). A bad value is a usage error naming its source.
 */
export function resolveLogSetup(flags: LogFlags, env: NodeJS.ProcessEnv, isTerminal: boolean): LogSetup {
  // An empty variable counts as unset, as a shell's `LOG_LEVEL= agent-gateway start` means.
  const fromEnv = (name: string) => (env[name] === '' ? undefined : env[name]);
  const levelSource = flags.level === undefined ? 'LOG_LEVEL' : '--log-level';
  const level = flags.level ?? fromEnv('LOG_LEVEL') ?? 'info';
  if (!isLogLevel(level)) throw new CliError(`${levelSource} must be one of ${LOG_LEVELS.join(', ')}; got ${level}`, 2);
  const formatSource = flags.format === undefined ? 'LOG_FORMAT' : '--log-format';
  const format = flags.format ?? fromEnv('LOG_FORMAT') ?? (isTerminal ? 'pretty' : 'json');
  if (!isLogFormat(format)) throw new CliError(`${formatSource} must be pretty or json, got ${format}`, 2);
  return { level, format };
}

/** pino-pretty is imported only for the pretty format. */
export async function createCliLogger({ level, format }: LogSetup): Promise<Logger> {
  return format === 'pretty'
    ? createLogger({ level, destination: await prettyDestination() })
    : createLogger({ level });
}
