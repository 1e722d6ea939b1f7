// The metrics capability: instruments built before the model router (which reports each call to them), then the
// module on the running services: gauges, the bus follower, the afterTool hook, GET /metrics and the snapshot timer.
import type { FastifyInstance } from 'fastify';
import type { CapabilityModule } from '../capability.js';
import type { MetricsConfig } from '../config/index.js';
import type { EventBus } from '../events/index.js';
import type { ModelCallObservation } from '../providers/index.js';
import type { RequestAuth } from '../server/index.js';
import { followBus } from './bus-metrics.js';
import { registerGauges, type GaugeSources } from './gauges.js';
import { createInstruments, type Instruments } from './instruments.js';
import { createLabelCaps } from './label-cap.js';
import { registerMetricsRoute } from './metrics-route.js';
import { emitSnapshots } from './snapshot.js';

/** Route label of a request no route matched (a 404, or one the router refused): never its raw URL. */
export const UNMATCHED_ROUTE = '_unmatched';

export interface Metrics {
  readonly config: MetricsConfig;
  readonly instruments: Instruments;
  /** The router's onModelCall. */
  observeModelCall(call: ModelCallObservation): void;
  /** Counts every response by route pattern: call on the root server before any route is registered. */
  instrumentHttp(app: FastifyInstance): void;
}

/** Undefined when metrics.enabled is false: nothing is counted and /metrics answers 404 (no route). */
export function createMetrics(config: MetricsConfig): Metrics | undefined {
  if (!config.enabled) return undefined;
  const instruments = createInstruments(createLabelCaps(config.maxLabelValues));
  return {
    config,
    instruments,
    observeModelCall: ({ ref, startedAt, durationMs, firstOutputAt, errorKind }) =>
      instruments.modelCall({
        provider: ref.provider,
        model: ref.modelId,
        durationMs,
        ...(firstOutputAt === undefined ? {} : { firstOutputMs: firstOutputAt - startedAt }),
        ...(errorKind === undefined ? {} : { errorKind }),
      }),
    instrumentHttp(app) {
      app.addHook('onResponse', function countResponse(request, reply, done) {
        instruments.http(
          request.method,
          request.routeOptions.url ?? UNMATCHED_ROUTE,
          reply.statusCode,
          reply.elapsedTime / 1000,
        );
        done();
      });
    },
  };
}

export interface MetricsModuleDeps {
  metrics: Metrics;
  events: EventBus;
  auth: RequestAuth;
  /** gateway.host at start: on a loopback bind /metrics needs no token. */
  host: string;
  startedAt: number;
  now: () => number;
  sources: Omit<GaugeSources, 'schedulerFiresRunning'>;
}

export function createMetricsModule({
  metrics,
  events,
  auth,
  host,
  startedAt,
  now,
  sources,
}: MetricsModuleDeps): CapabilityModule & { readonly name: 'metrics' } {
  const { instruments, config } = metrics;
  const caps = createLabelCaps(config.maxLabelValues);
  let bus: ReturnType<typeof followBus> | undefined;
  let stopSnapshots = (): void => {};
  const openBreakers = () => sources.breakers().filter(({ state }) => state !== 'closed').length;
  registerGauges(
    instruments.registry,
    { ...sources, schedulerFiresRunning: () => bus?.schedulerFiresRunning() ?? 0 },
    caps,
  );
  return {
    name: 'metrics',
    hooks: {
      async afterTool(result) {
        instruments.toolCall(result);
      },
    },
    routes: (scope) => registerMetricsRoute(scope, { registry: instruments.registry, host, auth }),
    start() {
      bus = followBus(events, instruments);
      stopSnapshots = emitSnapshots(events, config.eventIntervalMs, {
        totals: instruments.totals,
        startedAt,
        now,
        wsConnections: sources.wsConnections,
        sseSubscribers: sources.sseSubscribers,
        openBreakers,
      });
    },
    stop() {
      stopSnapshots();
      bus?.stop();
    },
  };
}
