// What app.ts has built before the capability modules, which app-modules.ts and app-channels.ts build them from.
import type { Logger } from 'pino';
import type { AppOptions } from './app-lifecycle.js';
import type { BudgetLedger } from './budgets/index.js';
import type { ConfigStore, GatewayConfig } from './config/index.js';
import type { Coordination, PeerBridge } from './coordination/index.js';
import type { EventBus } from './events/index.js';
import type { Recorder } from './obs/index.js';
import type { Metrics } from './metrics/index.js';
import type { GatewayModelRouter, LiveEmbedder } from './providers/index.js';
import type { MethodRegistry } from './rpc/types.js';
import type { RequestAuth, TokenDirectory, TokenService } from './server/index.js';
import type { StorePorts } from './store/index.js';
import type { Tracing } from './tracing/index.js';

/** What app.ts has built before the modules: config, storage, coordination, auth, models, evidence. */
export interface ModuleCore {
  options: AppOptions;
  now: () => number;
  startedAt: number;
  log: Logger;
  child: (component: string) => Logger;
  configStore: ConfigStore;
  /** The config the gateway started with: system.* reports the restart-only keys changed since. */
  started: GatewayConfig;
  store: StorePorts;
  events: EventBus;
  coordination: Coordination;
  recorder: Recorder;
  router: GatewayModelRouter;
  /** Reserves each model call's worst case against the budgets that apply, settles it after (src/budgets). */
  budgets: BudgetLedger;
  embedder: LiveEmbedder;
  auth: RequestAuth;
  tokens: TokenService;
  tokenDirectory: TokenDirectory;
  peers: PeerBridge;
  /** The method registry once every module has started; system.* lists its methods. */
  currentRegistry: () => MethodRegistry | undefined;
  /** OpenTelemetry traces; absent while otel.endpoint is unset. */
  tracing?: Tracing | undefined;
  /** The Prometheus instruments (absent when metrics.enabled is false); app-modules.ts adds the metrics module on them. */
  metrics?: Metrics;
  /** Open WebSocket connections and SSE streams, counted by the transports app.ts mounts after the modules. */
  transports?: { wsConnections(): number; sseSubscribers(): number };
}
