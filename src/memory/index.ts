// Memory: hybrid search over remembered entries, recall before each turn's model call, memory.* and /api/memory, the agent tools.
import type { Logger } from 'pino';
import type { AgentRegistry } from '../agents/index.js';
import type { CapabilityModule } from '../capability.js';
import type { GatewayConfig } from '../config/index.js';
import type { Recorder } from '../obs/index.js';
import { createHashingEmbedder, type Embedder } from '../providers/index.js';
import type { RequestAuth } from '../server/index.js';
import type { MemoryPort, SessionPort } from '../store/index.js';
import { createMemoryEmbedder, type MemoryEmbedder } from './memory-embedder.js';
import { createMemorySearch, type MemorySearch } from './memory-search.js';
import { createMemoryWriter, defaultTrustPolicy, type MemoryWriter, type TrustPolicy } from './memory-writer.js';
import { memoryStatsReader } from './memory-stats.js';
import { memoryMethods } from './methods.js';
import { createRecallHooks } from './recall-hook.js';
import { createRecallMarks } from './recall-marks.js';
import { createReembedder } from './reembed.js';
import { memoryRoutes } from './routes.js';
import { memoryTools } from './tools.js';

export { fuseRankings, RRF_K, type FusedHit, type LaneHit } from './rank-fusion.js';
export { createMemorySearch, MEMORY_LANES, type MemoryLane, type MemorySearch, type MemorySearchRequest, type MemorySearchResult, type ScoredEntry } from './memory-search.js';
export { createMemoryEmbedder, contentHash, type MemoryEmbedder } from './memory-embedder.js';
export { defaultTrustPolicy, type MemoryWrite, type MemoryWriteOrigin, type MemoryWriter, type TrustPolicy } from './memory-writer.js';
export { entryView, type MemoryEntryView } from './entry-view.js';
export { RECALL_HEADER, UNTRUSTED_LABEL } from './recall-context.js';
export { MEMORY_SEARCH_LIMIT_DEFAULT, MEMORY_SEARCH_LIMIT_MAX } from './methods.js';

export interface MemoryModuleDeps {
  ports: { memory: MemoryPort; sessions: Pick<SessionPort, 'list'> };
  /** The live config (memory: read per turn and call; embeddings: names the configured provider). */
  config: { get(): Pick<GatewayConfig, 'memory' | 'embeddings'> };
  /** The configured `embeddings:` embedder built at startup; absent: the built-in hashing embedder. */
  embedder: Embedder | undefined;
  recorder: Pick<Recorder, 'trajectory'>;
  auth: RequestAuth;
  agents: Pick<AgentRegistry, 'defaultAgentId'>;
  /** Decides the trust level of each write; the default trusts everything but webhook-started turns. */
  trustPolicy?: TrustPolicy;
  now: () => number;
  newId: () => string;
  log: Logger;
}

export interface MemoryModule extends CapabilityModule {
  /** For other modules (trust, lifecycle) and benchmarks: the same search, writer and embedder the methods use. */
  readonly memory: { search: MemorySearch; write: MemoryWriter; embedder: MemoryEmbedder; port: MemoryPort };
}

export function createMemoryModule(deps: MemoryModuleDeps): MemoryModule {
  const { ports, now, log } = deps;
  const port = ports.memory;
  const memoryConfig = () => deps.config.get().memory;
  const provider = deps.config.get().embeddings?.provider;
  const embedder = createMemoryEmbedder({
    configured: deps.embedder === undefined || provider === undefined ? undefined : { embedder: deps.embedder, provider },
    builtin: createHashingEmbedder(),
    cache: port,
    log,
  });
  const search = createMemorySearch({ port, embedder });
  const reembedder = createReembedder({ port, embedder, log });
  const write = createMemoryWriter({ port, embedder, reembedder, newId: deps.newId, now, log });
  const marks = createRecallMarks({ port, now, log });
  const trustPolicy = () => deps.trustPolicy ?? defaultTrustPolicy;
  const stats = memoryStatsReader(port, embedder.label);
  const methods = memoryMethods({
    port, search, write, stats, sessions: ports.sessions, trustPolicy, now,
    defaultAgentId: () => deps.agents.defaultAgentId() ?? 'default',
  });
  return {
    name: 'memory',
    memory: { search, write, embedder, port },
    methods,
    routes: memoryRoutes({ auth: deps.auth, search, sessions: ports.sessions, stats }),
    tools: memoryTools({ search, write, trustPolicy, config: memoryConfig }),
    hooks: createRecallHooks({ search, marks, recorder: deps.recorder, config: memoryConfig, now, log }),
    // Entries stored by an earlier embedder (or while the provider was down) get vectors of the current one.
    start: () => reembedder.kick(),
    async stop() {
      await reembedder.stop();
      await marks.flush();
    },
  };
}
