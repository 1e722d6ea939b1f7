// The turns capability module: builds the loop and TurnService (the one way every surface runs a turn) and serves
// agent.execute and agent.stream.
import type { EventBus } from '../events/index.js';
import type { Logger } from 'pino';
import type { AgentRegistry, ToolRegistry } from '../agents/index.js';
import type { MethodModule } from '../rpc/types.js';
import type { SessionLocks } from '../coordination/index.js';
import type { DeliveryRecorder, Recorder } from '../obs/index.js';
import type { ModelRouter } from '../providers/index.js';
import type { KeyGrants, SessionPort } from '../sessions/index.js';
import type { TurnHookRegistry } from './hook-registry.js';
import { DEFAULT_TURN_LIMITS, type TurnLimits } from './limits.js';
import { agentTurnMethods } from './methods.js';
import { createTurnLoop } from './turn-loop.js';
import { createTurnService, type TurnService } from './turn-service.js';
import type { TurnTracer } from '../tracing/index.js';

export interface TurnsModuleDeps {
  agents: AgentRegistry;
  router: ModelRouter;
  tools: ToolRegistry;
  /** Where sessions, their transcripts and their usage are kept. */
  store: SessionPort;
  /** Shared with everything else that rewrites a transcript (reset, compaction, delete). */
  locks: SessionLocks;
  /** The hooks of every module, registered once the modules are built. */
  hooks: TurnHookRegistry;
  events: EventBus;
  recorder: Recorder;
  delivery?: DeliveryRecorder;
  grants: KeyGrants;
  limits?: TurnLimits;
  now: () => number;
  log: Logger;
  /** Spans of each turn (src/tracing); absent while tracing is off. */
  tracer?: TurnTracer | undefined;
}

export interface TurnsModule extends MethodModule {
  readonly turns: TurnService;
}

export function createTurnsModule(deps: TurnsModuleDeps): TurnsModule {
  const { agents, router, tools, store, locks, hooks, events, recorder, delivery, grants, now, log } = deps;
  const loop = createTurnLoop({
    router,
    tools,
    events,
    recorder,
    ...(delivery === undefined ? {} : { delivery }),
    hooks,
    limits: deps.limits ?? DEFAULT_TURN_LIMITS,
    store,
    log,
    now,
    tracer: deps.tracer,
  });
  const turns = createTurnService({ agents, router, store, locks, loop, hooks, events, grants, now, log });
  return { name: 'turns', turns, methods: agentTurnMethods({ runner: turns }) };
}
