// The metrics config section: the Prometheus /metrics route (src/metrics), its label caps and the periodic snapshot event.
import { z } from 'zod';
import { durationMs, positiveInt } from './schema-units.js';

/** Prometheus metrics: read once at start (a change applies at the next restart). */
export const metricsConfigSchema = z.strictObject({
  /** Off: GET /metrics answers 404 and nothing is counted. */
  enabled: z.boolean().default(true),
  /** How often an `observability:metrics` event carries a small snapshot to /api/events; 0: never. */
  eventIntervalMs: durationMs(0).default(60_000),
  /**
   * Distinct values one label (agent, tool, model, route…) takes at most; values first seen past it are counted
   * under `_other`, so ids a client chooses cannot grow the exposition without bound.
   */
  maxLabelValues: positiveInt.max(100_000).default(200),
});

export type MetricsConfig = z.infer<typeof metricsConfigSchema>;
