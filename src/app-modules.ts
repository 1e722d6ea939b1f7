// The capability modules app.ts lists (DESIGN §1): the shared agent, tool and hook registries and every module built
// from the core with its deps, in start order, their tools and hooks registered. app.ts starts them and mounts them.
import { randomUUID } from 'node:crypto';
import {
  builtinTools,
  createAgentRegistry,
  createAgentsModule,
  createToolRegistry,
  type ManagedAgentRegistry,
} from './agents/index.js';
import { createA2aModule } from './a2a/index.js';
import { chatApprovalsWiring, createApprovalsModule } from './approvals/index.js';
import type { ModuleCore } from './app-core.js';
import { createChatModules } from './app-channels.js';
import { createGatewayMetricsModule } from './app-metrics.js';
import { createBrowserModule } from './browser/index.js';
import { createBudgetsModule } from './budgets/index.js';
import type { CapabilityModule } from './capability.js';
import type { ChannelsModule } from './channels/index.js';
import { changedRestartKeys } from './config/index.js';
import { limitSessionWaiters } from './coordination/index.js';
import { createGraphsModule } from './graphs/index.js';
import { createMcpModule, createMcpServerModule } from './mcp/index.js';
import { createMediaModule, type MediaModule } from './media/index.js';
import { createLearningModule } from './learning/index.js';
import { createReflector } from './learning/reflect/index.js';
import { createMemoryModule } from './memory/index.js';
import { createObsModule, recordRunsOrphaned, type ObsModule } from './obs/index.js';
import { createOrchestrateModule } from './orchestrate/index.js';
import { createHashingEmbedder, createModelsModule } from './providers/index.js';
import { createRegistry } from './rpc/index.js';
import { createRunsModule, type RunsModule } from './runs/index.js';
import { createSchedulerModule, heartbeatsThrough, systemClock } from './scheduler/index.js';
import { createSessionsModule, lifecycleSettings } from './sessions/index.js';
import { createSkillsModule } from './skills/index.js';
import { createSystemModule } from './system/index.js';
import { createTerminalModule } from './terminal/index.js';
import { createHookRegistry, createTurnsModule, type TurnService } from './turns/index.js';

/** The modules in start order, and the ones app.ts reaches into to mount the transports and to shut down. */
export interface AppModules {
  modules: CapabilityModule[];
  obs: ObsModule;
  agents: ManagedAgentRegistry;
  turns: TurnService;
  runs: RunsModule;
  media: MediaModule;
  channels: ChannelsModule;
}
export function createModules(core: ModuleCore): AppModules {
  const {
    options: { paths, version, requestRestart },
    now,
    startedAt,
    log,
    child,
    configStore,
    started,
    store,
    events,
    coordination,
    recorder,
    router,
    embedder,
    auth,
    tokens,
    tokenDirectory,
    peers,
    currentRegistry,
    budgets,
  } = core;
  const obs = createObsModule({
    store,
    events,
    recorder,
    now,
    newId: randomUUID,
    hasDurableRuns: true,
    log: child('obs'),
    priceOf: (provider, model) => router.entry({ provider, modelId: model })?.cost,
    retentionDays: () => configStore.get().obs.retentionDays,
    billingSnapshotIntervalMs: () => configStore.get().obs.billingSnapshotIntervalMs,
    leases: coordination.leases,
  });
  const { observability } = obs;
  const agents = createAgentRegistry({
    configStore,
    events,
    log: child('agents'),
    eventsShared: coordination.eventFeed !== undefined,
  });
  const tools = createToolRegistry(builtinTools({ now }));
  const hooks = createHookRegistry([], child('hooks'));
  const locks = limitSessionWaiters(coordination.locks, () => configStore.get().gateway.maxWaitingTurnsPerSession);
  const turnsModule = createTurnsModule({
    agents,
    router,
    tools,
    store: store.sessions,
    locks,
    hooks,
    events,
    recorder,
    delivery: observability.delivery,
    grants: tokenDirectory,
    now,
    log: child('turns'),
    tracer: core.tracing?.turns,
  });
  const { turns } = turnsModule;
  const runs = createRunsModule({
    store: store.sessions,
    runs: store.runs,
    turns,
    agents,
    instances: coordination.instances,
    peerStops: coordination.runStops,
    events,
    notify: peers.notify,
    now,
    newId: randomUUID,
    log: child('runs'),
    signals: observability.signals,
    onOrphaned: (orphaned) => recordRunsOrphaned(observability.signals, orphaned),
    maxRunningSpawns: started.runs.maxRunning,
    spawnQueue: () => configStore.get().runs.spawnQueue,
    orphanSweepMs: coordination.orphanSweepMs,
  });
  const approvals = createApprovalsModule({
    port: store.approvals,
    events,
    audit: observability.audit,
    agents,
    config: () => configStore.get().approvals,
    denialBreaker: runs.runControl,
    instances: coordination.instances,
    now,
    newId: randomUUID,
    log: child('approvals'),
  });
  const media = createMediaModule({
    port: store.media,
    config: configStore,
    dataDir: paths.dataDir,
    recorder,
    auth,
    tokens,
    now,
    newId: randomUUID,
    log: child('media'),
  });
  const mcp = createMcpModule({ config: configStore, signals: observability.signals, now, log: child('mcp') });
  tools.addSource('mcp', mcp.toolSource);
  const a2a = createA2aModule({
    config: () => configStore.get().a2a,
    agents,
    turns,
    events,
    auth,
    version,
    now,
    newId: randomUUID,
    log: child('a2a'),
    runControl: runs.runControl,
    store,
    audit: observability.audit,
  });
  tools.addSource('a2a', a2a.toolSource);
  const orchestrate = createOrchestrateModule({
    config: () => configStore.get().orchestrate,
    agents,
    tools,
    hooks,
    runControl: runs.runControl,
    recorder,
    signals: observability.signals,
    now,
    newId: randomUUID,
    log: child('orchestrate'),
  });
  const memory = createMemoryModule({
    ports: store,
    grants: tokenDirectory,
    config: configStore,
    embedder: embedder.current,
    recorder,
    events,
    signals: observability.signals,
    auth,
    agents,
    now,
    newId: randomUUID,
    log: child('memory'),
    onRecalled: (traceId, ids) => learning.noteRecalled(traceId, ids),
  });
  const learning = createLearningModule({
    port: store.learning,
    sessions: store.sessions,
    memory: { demote: (ids, at) => store.memory.demote(ids, at), flushRecallMarks: memory.memory.flushRecallMarks },
    recorder,
    signals: observability.signals,
    router,
    config: () => configStore.get().learning,
    leases: coordination.leases,
    reflector: (ports) =>
      createReflector({
        ports,
        settled: () => learning.settled(),
        router,
        agents,
        tools,
        config: () => configStore.get().learning,
        recorder,
        signals: observability.signals,
        now,
        log: child('reflect'),
      }),
    now,
    newId: randomUUID,
    log: child('learning'),
  });
  const graphs = createGraphsModule({
    store,
    runControl: runs.runControl,
    turns,
    agents,
    tools,
    hooks,
    approvals: approvals.approvals,
    router,
    events,
    signals: observability.signals,
    observe: (observed) => learning.observe(observed),
    now,
    newId: randomUUID,
    log: child('graphs'),
  });
  const skills = createSkillsModule({
    config: configStore,
    dataDir: paths.dataDir,
    agents,
    learned: learning.source,
    events,
    now,
    log: child('skills'),
  });
  const chat = chatApprovalsWiring();
  const chatParts = { turns, runs, media, obs, learning, wrapAdapter: chat.wrapAdapter };
  const { audio, channels } = createChatModules(core, chatParts);
  const modules: CapabilityModule[] = [
    obs,
    createSystemModule({
      now,
      version,
      registry: () => currentRegistry() ?? createRegistry([]),
      startedAt,
      configPaths: [paths.configPath],
      restart: requestRestart,
      config: configStore,
      tokens,
      restartPending: () => changedRestartKeys(started, configStore.get()),
    }),
    createModelsModule({ router, config: configStore, log }),
    createBudgetsModule({ config: configStore, ledger: budgets, tenantsOf: tokenDirectory.tenantsOf, now }),
    turnsModule,
    createSessionsModule({
      store: store.sessions,
      memory: store.memory,
      turns,
      router,
      agents,
      locks,
      now,
      log: child('sessions'),
      onReset: approvals.forgetSession,
      lifecycle: { events, settings: () => lifecycleSettings(configStore.get()) },
    }),
    runs,
    // Before approvals: a call the followed skill does not allow is denied before anyone is asked to approve it.
    skills,
    approvals,
    media,
    createAgentsModule({
      agents,
      router,
      tools,
      mcp: mcp.servers,
      skills: () => skills.catalog.entries().filter((skill) => skill.source === 'dir'),
      embeddings: () => configStore.get().embeddings,
      builtinEmbedder: createHashingEmbedder(),
      log: child('agents'),
    }),
    memory,
    learning,
    createSchedulerModule({
      jobs: store.jobs,
      turns,
      events,
      signals: observability.signals,
      recorder,
      tools,
      leases: coordination.leases,
      jobChanges: coordination.jobChanges,
      agents,
      config: () => configStore.get().scheduler,
      clock: { ...systemClock, now },
      runs: runs.runControl,
      newId: randomUUID,
      log: child('scheduler'),
      rateLimit: { counter: coordination.rateCounter, limit: () => configStore.get().gateway.rateLimit },
      heartbeats: heartbeatsThrough(channels.delivery, configStore),
    }),
    audio,
    createBrowserModule({
      config: () => configStore.get().browser,
      saveMedia: (input) => media.media.save(input),
      now,
      newId: randomUUID,
      log: child('browser'),
    }),
    createTerminalModule({ configStore, paths, recorder, now, newId: randomUUID, log: child('terminal') }),
    mcp,
    createMcpServerModule({
      auth,
      config: configStore,
      agents,
      tools,
      turns,
      audit: observability.audit,
      secretRetired: tokens.onSecretRetired,
      version,
      now,
      log: child('mcp-server'),
    }),
    orchestrate,
    graphs,
    a2a,
    channels,
    chat.attach({ channels: channels.delivery, approvals: approvals.approvals, requests: store.approvals, ...core }),
  ];
  const metricsModule = createGatewayMetricsModule(core, { approvals, locks, channels });
  if (metricsModule !== undefined) modules.push(metricsModule);
  for (const module of modules) {
    tools.register(module.tools ?? []);
    hooks.register(module);
  }
  return { modules, obs, agents, turns, runs, media, channels };
}
