// Prometheus metrics (GET /metrics) on a registry of the gateway's own, label values capped, and the periodic
// observability:metrics snapshot event.
export { createMetrics, createMetricsModule, type Metrics } from './module.js';
export { isLoopbackHost, metricsNeedToken } from './metrics-route.js';
export { createLabelCaps, OTHER_LABEL_VALUE } from './label-cap.js';
