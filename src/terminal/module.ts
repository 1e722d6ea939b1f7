// The terminal capability module: the drive table over the agents' workspaces, the terminal_* tools, the terminal.*
// methods, the drives' trajectory records at each turn's end and each drive's end, and every drive ended at stop.
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { CapabilityModule } from '../capability.js';
import type { ConfigStore, GatewayPaths, TerminalConfig } from '../config/index.js';
import type { Recorder } from '../obs/index.js';
import { createDrives, type Drives } from './drives.js';
import { createTerminalEvidence } from './evidence.js';
import { terminalMethods } from './methods.js';
import { terminalTools } from './tools.js';

export interface TerminalModuleDeps {
  /** The live config: its `terminal:` section (`workspace` is read once, at start). */
  configStore: Pick<ConfigStore, 'get'>;
  /** The default workspace root is `<dataDir>/workspace`. */
  paths: Pick<GatewayPaths, 'dataDir'>;
  recorder: Pick<Recorder, 'trajectory'>;
  now: () => number;
  newId: () => string;
  log: Logger;
}

export interface TerminalModule extends CapabilityModule {
  readonly drives: Drives;
}

export function createTerminalModule(deps: TerminalModuleDeps): TerminalModule {
  const { now, log } = deps;
  const config = (): TerminalConfig => deps.configStore.get().terminal;
  const drives = createDrives({
    config,
    workspaceRoot: config().workspace ?? join(deps.paths.dataDir, 'workspace'),
    now,
    newId: deps.newId,
    log,
  });
  const evidence = createTerminalEvidence({ recorder: deps.recorder, now, log });
  drives.onEnded((info, end) => evidence.ended(info, end));
  return {
    name: 'terminal',
    drives,
    methods: terminalMethods({ drives, now }),
    tools: terminalTools({ drives, config, evidence }),
    hooks: {
      async afterTurn(_summary, ctx) {
        evidence.turnEnded(ctx.traceId, ctx.agentId, (driveId) => drives.get(driveId) !== undefined);
      },
    },
    start() {
      const { enabled, sandbox } = config();
      if (enabled && sandbox === 'none')
        log.warn("terminal.sandbox is none: agents' shells run unjailed, with the gateway user's file access");
    },
    stop: () => drives.closeAll('shutdown'),
  };
}
