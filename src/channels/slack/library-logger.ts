// The Slack libraries' logger interface over the gateway's pino logger. Their debug and info lines carry request
// and WebSocket payloads (message bodies), so only warnings and errors pass, as text the libraries wrote.
import { LogLevel, type Logger as SlackLogger } from '@slack/web-api';
import type { Logger } from 'pino';

function line(parts: unknown[]): string {
  return parts.map((part) => (part instanceof Error ? part.message : String(part))).join(' ');
}

export function slackLibraryLogger(log: Logger): SlackLogger {
  return {
    debug() {},
    info() {},
    warn(...parts: unknown[]) {
      log.warn({ library: 'slack' }, line(parts));
    },
    error(...parts: unknown[]) {
      log.warn({ library: 'slack' }, line(parts));
    },
    // The level the libraries ask for decides whether they build debug text at all: never.
    getLevel: () => LogLevel.WARN,
    setLevel() {},
    setName() {},
  };
}
