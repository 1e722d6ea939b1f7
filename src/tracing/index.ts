// Tracing (OpenTelemetry over OTLP/HTTP): W3C trace context in and out, and the lazily loaded span exporter.
import type { Logger } from 'pino';
import type { OtelConfig } from '../config/index.js';
import type { Tracing } from './types.js';

export { createTraceIds, parseTraceparent, type TraceParent } from './traceparent.js';
export { runInTrace } from './trace-scope.js';
export type { ChatSpan, Tracing, TurnSpan, TurnTracer } from './types.js';

export interface TracingDeps {
  config: OtelConfig;
  log: Logger;
  /** The type of a configured provider (openai, anthropic, google …), for gen_ai.provider.name. */
  providerType: (providerId: string) => string | undefined;
}

/**
 * The tracing of a gateway whose otel.endpoint is set; undefined otherwise. The OpenTelemetry SDK is imported only
 * here, so a gateway without an endpoint never loads it.
 */
export async function startTracing(deps: TracingDeps): Promise<Tracing | undefined> {
  if (deps.config.endpoint === undefined) return undefined;
  const { createOtelTracing } = await import('./otel-tracing.js');
  return createOtelTracing({ ...deps, endpoint: deps.config.endpoint });
}
