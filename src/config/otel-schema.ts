// The otel config section: OpenTelemetry traces over OTLP/HTTP (src/tracing), off until an endpoint is set.
import { z } from 'zod';

const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, 'must be an HTTP header name');

/** Traces of turns, model calls and tool calls following the OpenTelemetry GenAI semantic conventions. */
export const otelConfigSchema = z.strictObject({
  /**
   * The collector's OTLP/HTTP base URL (`http://collector:4318`; `/v1/traces` is appended unless the URL already ends
   * with it). Unset: tracing is off and no OpenTelemetry code is loaded.
   */
  endpoint: z
    .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
    .max(8_192)
    .optional(),
  /** Sent with every export (a collector's API key); values may be ${ENV} or ${secret:NAME} references. */
  headers: z.record(headerName, z.string().max(8_192)).default({}),
  /** The `service.name` resource attribute of every span. */
  serviceName: z.string().min(1).max(256).default('agent-gateway'),
  /** Records message content (prompts, replies, tool arguments and results) on the spans; off: counts and ids only. */
  captureContent: z.boolean().default(false),
  /** Share of new traces recorded (0..1); a trace a caller started keeps the caller's sampling decision. Unset: all. */
  sampleRatio: z.number().min(0).max(1).optional(),
});

export type OtelConfig = z.infer<typeof otelConfigSchema>;
