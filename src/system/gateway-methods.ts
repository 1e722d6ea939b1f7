// gateway.* methods (admin): process status of the running gateway.
import { GatewayError } from '../errors.js';
import { defineMethod, noParams } from '../rpc/index.js';

export interface GatewayMethodsDeps {
  now: () => number;
  startedAt: number;
  configPaths: readonly string[];
  sections: () => string[];
  /** Config keys changed since start that only a restart applies (config/restart-keys.ts), in a fixed order. */
  restartPending: () => string[];
  /** Undefined when this process cannot restart itself (the gateway was not started by the CLI). */
  restart: (() => Promise<void>) | undefined;
}

export function gatewayMethods({ now, startedAt, configPaths, sections, restartPending, restart }: GatewayMethodsDeps) {
  return [
    defineMethod({
      name: 'gateway.status',
      scope: 'admin',
      summary:
        'Process id, uptime in seconds, memory usage, Node version, config paths and sections, and restartPending: the config keys changed since start that apply only at the next restart.',
      params: noParams,
      handler: () => ({
        pid: process.pid,
        uptime: (now() - startedAt) / 1000,
        memoryUsage: process.memoryUsage(),
        nodeVersion: process.version,
        configPaths: [...configPaths],
        sections: sections(),
        restartPending: restartPending(),
      }),
    }),
    defineMethod({
      name: 'gateway.restart',
      scope: 'admin',
      summary: 'Reloads the config file and restarts every service in-process; answers before restarting.',
      params: noParams,
      handler: (_params, ctx) => {
        if (restart === undefined)
          throw new GatewayError(
            'unavailable',
            'This gateway process cannot restart itself; restart it with its service manager',
          );
        // The answer is already sent when the restart runs, so its failure can only be logged; left unhandled
        // the rejection would end the process.
        setImmediate(() => {
          restart().catch((error: unknown) =>
            ctx.log.error({ err: error, traceId: ctx.traceId }, 'gateway restart failed'),
          );
        });
        return { restarting: true };
      },
    }),
  ];
}
