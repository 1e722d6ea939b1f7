// Builds the real TurnService (session lock, owner check, loop, usage, hooks) through the turns module, over given
// router, store and recorder.
import type { EventBus } from '../../src/events/index.js';
import type { AgentRegistry, ToolDefinition } from '../../src/agents/index.js';
import { createToolRegistry } from '../../src/agents/index.js';
import type { Recorder } from '../../src/obs/index.js';
import { createLogger } from '../../src/obs/logger.js';
import type { ModelRouter } from '../../src/providers/index.js';
import type { SessionPort } from '../../src/sessions/index.js';
import { createHookRegistry, createTurnsModule, type HookSource, type TurnService } from '../../src/turns/index.js';
import { createSessionLocks } from '../../src/coordination/index.js';
import { tokenGrants, type TenantGrants } from '../support/token-grants.js';

export interface TurnServiceFixtureDeps {
  agents: AgentRegistry;
  router: ModelRouter;
  store: SessionPort;
  recorder: Recorder;
  events: EventBus;
  tools?: readonly ToolDefinition[];
  /** Modules whose hooks the loop calls, in order. */
  hookSources?: readonly HookSource[];
  now?: () => number;
  /** Tenants besides `default` each token id is given (config gateway.tokens[].tenants); none when absent. */
  tenants?: TenantGrants;
}

export function createTurnServiceFixture({
  agents,
  router,
  store,
  recorder,
  events,
  tools = [],
  hookSources = [],
  now = Date.now,
  tenants,
}: TurnServiceFixtureDeps): TurnService {
  const log = createLogger({ level: 'silent' });
  const hooks = createHookRegistry(hookSources, log);
  return createTurnsModule({
    agents,
    router,
    tools: createToolRegistry(tools),
    store,
    locks: createSessionLocks(),
    hooks,
    events,
    recorder,
    grants: tokenGrants(tenants),
    now,
    log,
  }).turns;
}
