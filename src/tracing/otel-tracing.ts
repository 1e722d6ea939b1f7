// The OpenTelemetry side of tracing, loaded only when otel.endpoint is set: a tracer provider of its own (nothing is
// registered globally), batching spans to the collector over OTLP/HTTP (JSON).
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  RandomIdGenerator,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import type { OtelConfig } from '../config/index.js';
import { GEN_AI, providerName } from './gen-ai-attributes.js';
import { currentTrace, runInTrace } from './trace-scope.js';
import { formatTraceparent, isTraceId, type TraceParent } from './traceparent.js';
import type { ChatSpan, ToolSpan, Tracing, TurnSpan } from './types.js';

export interface OtelTracingDeps {
  config: OtelConfig;
  endpoint: string;
  log: Logger;
  providerType: (providerId: string) => string | undefined;
}

/** An attribute value past this many characters is cut (captured content can be long). */
const ATTRIBUTE_VALUE_MAX_CHARS = 16_384;
const TRACES_PATH = '/v1/traces';

function tracesUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, '');
  return base.endsWith(TRACES_PATH) ? base : `${base}${TRACES_PATH}`;
}

function traceOf(span: Span): TraceParent {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return { traceId, spanId, sampled: (traceFlags & 1) === 1, isRemote: false };
}

function failed(span: Span, errorType: string, message?: string): void {
  span.setAttribute(GEN_AI.errorType, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, ...(message === undefined ? {} : { message }) });
}

const textMessage = (role: string, content: string) => ({ role, parts: [{ type: 'text', content }] });

export function createOtelTracing({ config, endpoint, log, providerType }: OtelTracingDeps): Tracing {
  const random = new RandomIdGenerator();
  // A trace the gateway starts takes the request's own trace id (its x-request-id), so logs and spans agree.
  let presetTraceId: string | undefined;
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName }),
    sampler: new ParentBasedSampler({
      root: config.sampleRatio === undefined ? new AlwaysOnSampler() : new TraceIdRatioBasedSampler(config.sampleRatio),
    }),
    idGenerator: {
      generateTraceId: () => presetTraceId ?? random.generateTraceId(),
      generateSpanId: () => random.generateSpanId(),
    },
    spanLimits: { attributeValueLengthLimit: ATTRIBUTE_VALUE_MAX_CHARS },
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(endpoint), headers: { ...config.headers } })),
    ],
  });
  const tracer = provider.getTracer('agent-gateway');
  const { captureContent } = config;

  function start(name: string, kind: SpanKind, attributes: Attributes, parent: TraceParent | undefined): Span {
    let context: Context = ROOT_CONTEXT;
    if (parent?.spanId !== undefined) {
      const { traceId, spanId, sampled, isRemote } = parent;
      context = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: sampled ? 1 : 0, isRemote });
    }
    presetTraceId =
      parent !== undefined && parent.spanId === undefined && isTraceId(parent.traceId) ? parent.traceId : undefined;
    try {
      return tracer.startSpan(name, { kind, attributes }, context);
    } finally {
      presetTraceId = undefined;
    }
  }

  /** Runs `run` in `span`'s trace; a throw marks the span failed. The span is ended either way. */
  async function within<T>(span: Span, run: () => Promise<T>): Promise<T> {
    try {
      return await runInTrace(traceOf(span), run);
    } catch (error) {
      failed(span, error instanceof Error ? error.name : 'error', error instanceof Error ? error.message : undefined);
      throw error;
    } finally {
      span.end();
    }
  }

  return {
    turns: {
      startTurn({ agentId, turnId, sessionKey }) {
        const turnSpan = start(
          `invoke_agent ${agentId}`,
          SpanKind.INTERNAL,
          {
            [GEN_AI.operationName]: 'invoke_agent',
            [GEN_AI.agentName]: agentId,
            [GEN_AI.agentId]: agentId,
            [GEN_AI.conversationId]: sessionKey,
            'agent_gateway.turn.trace_id': turnId,
          },
          currentTrace(),
        );
        const parent = traceOf(turnSpan);
        const span: TurnSpan = {
          chat({ model, messages }, run) {
            const chatSpan = start(
              `chat ${model.modelId}`,
              SpanKind.CLIENT,
              {
                [GEN_AI.operationName]: 'chat',
                [GEN_AI.providerName]: providerName(providerType(model.provider)),
                [GEN_AI.requestModel]: model.modelId,
                ...(captureContent
                  ? { [GEN_AI.inputMessages]: JSON.stringify(messages.map((m) => textMessage(m.role, m.content))) }
                  : {}),
              },
              parent,
            );
            const handle: ChatSpan = {
              answered(call) {
                chatSpan.setAttributes({
                  [GEN_AI.providerName]: providerName(providerType(call.model.provider)),
                  [GEN_AI.responseModel]: call.model.modelId,
                  [GEN_AI.inputTokens]: call.inputTokens,
                  [GEN_AI.outputTokens]: call.outputTokens,
                  [GEN_AI.responseFinishReasons]: [call.finishReason.replaceAll('-', '_')],
                });
                if (captureContent) {
                  const parts: unknown[] = call.text.length > 0 ? [{ type: 'text', content: call.text }] : [];
                  for (const { id, name, input } of call.toolCalls)
                    parts.push({ type: 'tool_call', id, name, arguments: input });
                  chatSpan.setAttribute(
                    GEN_AI.outputMessages,
                    JSON.stringify([{ role: 'assistant', parts, finish_reason: call.finishReason }]),
                  );
                }
              },
            };
            return within(chatSpan, () => run(handle));
          },
          tool({ id, name, input }, run) {
            const toolSpan = start(
              `execute_tool ${name}`,
              SpanKind.INTERNAL,
              {
                [GEN_AI.operationName]: 'execute_tool',
                [GEN_AI.toolName]: name,
                [GEN_AI.toolCallId]: id,
                [GEN_AI.toolType]: 'function',
                ...(captureContent ? { [GEN_AI.toolCallArguments]: JSON.stringify(input) ?? 'null' } : {}),
              },
              parent,
            );
            const handle: ToolSpan = {
              finished({ ok, errorKind, content }) {
                if (!ok) failed(toolSpan, errorKind ?? 'tool_error');
                if (captureContent) toolSpan.setAttribute(GEN_AI.toolCallResult, content);
              },
            };
            return within(toolSpan, () => run(handle));
          },
          end({ finishReason, error }) {
            turnSpan.setAttribute(GEN_AI.responseFinishReasons, [finishReason]);
            if (error !== undefined || finishReason === 'error') failed(turnSpan, finishReason, error);
            turnSpan.end();
          },
        };
        return span;
      },
    },
    upstreamTraceparent() {
      const current = currentTrace();
      return current?.spanId === undefined
        ? undefined
        : formatTraceparent(current.traceId, current.spanId, current.sampled);
    },
    async shutdown() {
      try {
        await provider.shutdown();
      } catch (error) {
        log.warn({ err: error }, 'could not export the last spans');
      }
    },
  };
}
