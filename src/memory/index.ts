// Memory: hybrid search over remembered entries, recall before each turn's model call, memory.* and /api/memory, the agent
// tools, trust of new entries, the injection scan of inbound text, and the scheduled lifecycle sweep.
import type { EventBus } from '../events/index.js';
import type { Logger } from 'pino';
import type { AgentRegistry } from '../agents/index.js';
import type { CapabilityModule } from '../capability.js';
import type { GatewayConfig } from '../config/index.js';
import type { HealthSignalRecorder, Recorder } from '../obs/index.js';
import { createHashingEmbedder, type Embedder } from '../providers/index.js';
import type { RequestAuth } from '../server/index.js';
import type { MemoryPort } from '../store/index.js';
import { withEntryPresence } from './entry-presence.js';
import { createInjectionMonitor, injectionScanHook } from './injection-monitor.js';
import { createLifecycleSweeper, lifecyclePolicyOf } from './lifecycle.js';
import { createMemoryEmbedder, type MemoryEmbedder } from './memory-embedder.js';
import { createMemorySearch, type MemorySearch } from './memory-search.js';
import { createMemoryWriter, type MemoryWriter } from './memory-writer.js';
import { memoryStatsReader } from './memory-stats.js';
import { memoryMethods } from './methods.js';
import { createRecallHooks } from './recall-hook.js';
import { createRecallMarks } from './recall-marks.js';
import type { ReaderGrants } from './reader-scope.js';
import { createReembedder } from './reembed.js';
import { memoryRoutes } from './routes.js';
import { memoryTools } from './tools.js';
import { createTrustPolicy } from './trust.js';

export { fuseRankings, RRF_K } from './rank-fusion.js';
export { createMemorySearch, type MemoryLane, type MemorySearch, type ScoredEntry } from './memory-search.js';
export { createMemoryEmbedder, type MemoryEmbedder } from './memory-embedder.js';
export type { MemoryWriter } from './memory-writer.js';
export { isWebhookChannel, UNTRUSTED_MEMORY_LABEL } from './trust.js';
export { RECALL_HEADER } from './recall-context.js';
export { detectInjection } from './injection.js';
export { memoryMethods } from './methods.js';
export { type ReaderGrants } from './reader-scope.js';

export interface MemoryModuleDeps {
  ports: { memory: MemoryPort };
  /** Which tokens exist, which are admin and which tenants each is given: whose memories a caller or a turn reads. */
  grants: ReaderGrants;
  /**
   * The live config (memory: read per turn and call; embeddings: names the configured provider; storage and
   * coordination: whether this process makes every insert, read once at start since they change only with a restart).
   */
  config: { get(): Pick<GatewayConfig, 'memory' | 'embeddings' | 'storage' | 'coordination'> };
  /** The configured `embeddings:` embedder as the config is now (it applies live); absent: the built-in hashing embedder. */
  embedder: () => Embedder | undefined;
  recorder: Pick<Recorder, 'trajectory'>;
  /** Where security:memory_tainted, security:injection_detected and security:injection_rate_exceeded go. */
  events: Pick<EventBus, 'emit'>;
  /** Where each lifecycle sweep is recorded (the fleet report's memory_lifecycle finding). */
  signals: HealthSignalRecorder;
  auth: RequestAuth;
  agents: Pick<AgentRegistry, 'defaultAgentId'>;
  now: () => number;
  newId: () => string;
  log: Logger;
  /** Told the ids recalled into each turn (learning's memory attribution). */
  onRecalled?: (traceId: string, ids: readonly string[]) => void;
}

export interface MemoryModule extends CapabilityModule {
  /** For other modules and benchmarks: the same search, writer and embedder the methods use. */
  readonly memory: {
    search: MemorySearch;
    write: MemoryWriter;
    embedder: MemoryEmbedder;
    port: MemoryPort;
    /** Writes the recall marks still buffered (so a demotion made after it is not undone by a late mark). */
    flushRecallMarks(): Promise<void>;
  };
}

/**
 * The memory embedder of the configured embedder as it is now: when `embeddings:` changes, the next use embeds with the
 * new one (vectors are keyed by model, so none are compared across models) and entries get its vectors in the background.
 */
function liveMemoryEmbedder(deps: MemoryModuleDeps, onChange: () => void): MemoryEmbedder {
  const builtin = createHashingEmbedder();
  let built: { source: Embedder | undefined; provider: string | undefined; embedder: MemoryEmbedder } | undefined;
  const current = (): MemoryEmbedder => {
    const source = deps.embedder();
    const provider = deps.config.get().embeddings?.provider;
    if (built !== undefined && built.source === source && built.provider === provider) return built.embedder;
    const isChange = built !== undefined;
    const configured = source === undefined || provider === undefined ? undefined : { embedder: source, provider };
    built = {
      source,
      provider,
      embedder: createMemoryEmbedder({ configured, builtin, cache: deps.ports.memory, log: deps.log }),
    };
    if (isChange) onChange();
    return built.embedder;
  };
  return {
    get model() {
      return current().model;
    },
    get label() {
      return current().label;
    },
    embed: (texts, signal, payer) => current().embed(texts, signal, payer),
  };
}

export function createMemoryModule(deps: MemoryModuleDeps): MemoryModule {
  const { ports, now, log } = deps;
  // Alone on its SQLite file (no replicas: coordination local) this process makes every insert, so a scope it found
  // empty stays empty until it makes one. Replicas share the database (PostgreSQL, or one SQLite file), and each of
  // them asks it every time.
  const { storage, coordination } = deps.config.get();
  const isSoleWriter = storage.kind === 'sqlite' && coordination.kind === 'local';
  const port = isSoleWriter ? withEntryPresence(ports.memory) : ports.memory;
  const memoryConfig = () => deps.config.get().memory;
  const embedder = liveMemoryEmbedder(deps, () => reembedder.kick());
  const search = createMemorySearch({ port, embedder });
  const reembedder = createReembedder({ port, embedder, log });
  const write = createMemoryWriter({ port, embedder, reembedder, newId: deps.newId, now, log });
  const marks = createRecallMarks({ port, now, log });
  const trust = createTrustPolicy({ events: deps.events });
  const injection = createInjectionMonitor({ events: deps.events, now });
  // The interval applies from start to stop (a reload changes it at the next restart); the policy at each sweep.
  const { sweepIntervalMs } = memoryConfig().lifecycle;
  const sweeper =
    sweepIntervalMs === 0
      ? undefined
      : createLifecycleSweeper({
          port,
          signals: deps.signals,
          policy: () => lifecyclePolicyOf(memoryConfig().lifecycle),
          intervalMs: sweepIntervalMs,
          now,
          log,
        });
  const stats = memoryStatsReader(port, embedder);
  const methods = memoryMethods({
    port,
    search,
    write,
    stats,
    grants: deps.grants,
    trust,
    now,
    defaultAgentId: () => deps.agents.defaultAgentId() ?? 'default',
  });
  return {
    name: 'memory',
    memory: { search, write, embedder, port, flushRecallMarks: () => marks.flush() },
    methods,
    routes: memoryRoutes({ auth: deps.auth, search, grants: deps.grants, stats }),
    tools: memoryTools({ search, write, trust, injection, config: memoryConfig, grants: deps.grants }),
    // The scan sees the inbound message before recall adds anything; trust tracks each turn's tool output.
    hooks: [
      { beforeModel: injectionScanHook(injection) },
      trust.hooks,
      createRecallHooks({
        search,
        port,
        marks,
        recorder: deps.recorder,
        config: memoryConfig,
        grants: deps.grants,
        now,
        log,
        ...(deps.onRecalled === undefined ? {} : { onRecalled: deps.onRecalled }),
      }),
    ],
    start() {
      // Entries stored by an earlier embedder (or while the provider was down) get vectors of the current one.
      reembedder.kick();
      sweeper?.start();
    },
    async stop() {
      await sweeper?.stop();
      await reembedder.stop();
      await marks.flush();
    },
  };
}
