// The human log format (`--log-format pretty`): pino's lines through pino-pretty, loaded only when asked for, so a JSON
// start never reads it.
import type { DestinationStream } from 'pino';

/** `--log-format`: pino-pretty's human lines, or pino's JSON lines. */
export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export function isLogFormat(text: string): text is LogFormat {
  return (LOG_FORMATS as readonly string[]).includes(text);
}

/**
 * A stream writing each entry as `[time] LEVEL: message` with its fields below, to stdout. Synchronous writes, so
 * the lines logged just before a `process.exit` (shutdown, a failed restart) are not lost.
 */
export async function prettyDestination(): Promise<DestinationStream> {
  const { default: pretty } = await import('pino-pretty');
  return pretty({ sync: true, ignore: 'pid,hostname,service', translateTime: 'SYS:HH:MM:ss.l' });
}
