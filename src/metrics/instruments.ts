// The gateway's Prometheus instruments on a registry of its own: HTTP, turns, tokens and cost, model calls, tool calls
// (plain numbers on the request path, read by prom-client at scrape time: batched-metrics.ts).
import { Registry } from 'prom-client';
import type { MetricsSnapshot } from '../events/index.js';
import { batchedCounter, batchedHistogram } from './batched-metrics.js';
import type { LabelCaps } from './label-cap.js';

/** GenAI semantic conventions' advised buckets for gen_ai.client.operation.duration and time_to_first_chunk (s). */
const GEN_AI_DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
/** GenAI semantic conventions' advised buckets for gen_ai.client.token.usage ({token}). */
const GEN_AI_TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];
const TOOL_DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 120];

/** One model call as the router saw it end (src/providers ModelCallObservation). */
export interface ModelCallSample {
  provider: string;
  model: string;
  durationMs: number;
  firstOutputMs?: number;
  errorKind?: string;
}

export interface TokenSample {
  agentId: string;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface ToolSample {
  toolName: string;
  ok: boolean;
  errorKind?: string;
  durationMs: number;
}

/** Totals since start, kept beside the instruments: the observability:metrics snapshot less its gauges. */
export type Totals = Omit<
  MetricsSnapshot,
  'uptimeMs' | 'wsConnections' | 'sseSubscribers' | 'openBreakers' | 'rssBytes' | 'heapUsedBytes'
>;

export interface Instruments {
  readonly registry: Registry;
  readonly totals: Readonly<Totals>;
  http(method: string, route: string, status: number, seconds: number): void;
  turn(agentId: string, finishReason: string): void;
  tokens(sample: TokenSample): void;
  modelCall(sample: ModelCallSample): void;
  toolCall(sample: ToolSample): void;
}

/**
 * A metric's children by label values, each value capped first: the cache (and the exposition) stays bounded by
 * the caps, and a repeated combination skips prom-client's own label hashing.
 */
function childrenOf<T>(caps: LabelCaps, names: readonly string[], make: (values: string[]) => T) {
  const children = new Map<string, T>();
  return (...raw: string[]): T => {
    // A combination seen before is found by its raw values: they are within the caps (or are `_other` itself), so
    // capping them again would give the same key. Only a new combination pays for the caps' lookups.
    const seen = children.get(raw.join('\u0000'));
    if (seen !== undefined) return seen;
    const values = raw.map((value, index) => caps.cap(names[index] ?? '', value));
    const key = values.join('\u0000');
    let child = children.get(key);
    if (child === undefined) {
      child = make(values);
      children.set(key, child);
    }
    return child;
  };
}

/** The GenAI labels every model-call series carries, in their exposition order. */
function genAiOf(provider: string, model: string) {
  return { gen_ai_operation_name: 'chat', gen_ai_provider_name: provider, gen_ai_request_model: model };
}

export function createInstruments(caps: LabelCaps): Instruments {
  const registry = new Registry();
  const registers = [registry];
  const totals: Totals = {
    httpRequests: 0,
    turns: 0,
    modelCalls: 0,
    modelCallFailures: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    toolCalls: 0,
    toolFailures: 0,
  };

  const httpLabels = ['method', 'route', 'status'];
  const httpRequests = batchedCounter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames: httpLabels,
    registers,
  });
  const httpDuration = batchedHistogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'Time from an HTTP request to its response, by method, route pattern and status code.',
    labelNames: httpLabels,
    buckets: HTTP_DURATION_BUCKETS,
    registers,
  });
  const httpChild = childrenOf(caps, httpLabels, ([method = '', route = '', status = '']) => ({
    requests: httpRequests({ method, route, status }),
    duration: httpDuration({ method, route, status }),
  }));

  const turns = batchedCounter({
    name: 'gateway_turns_total',
    help: 'Agent turns ended, by agent and finish reason.',
    labelNames: ['agent', 'finish_reason'],
    registers,
  });
  const turnChild = childrenOf(caps, ['agent', 'finish_reason'], ([agent = '', reason = '']) =>
    turns({ agent, finish_reason: reason }),
  );

  const genAiTokenLabels = [
    'gen_ai_operation_name',
    'gen_ai_provider_name',
    'gen_ai_request_model',
    'gen_ai_token_type',
  ];
  const genAiTokens = batchedHistogram({
    name: 'gen_ai_client_token_usage',
    help: 'Tokens per model call (GenAI semantic conventions gen_ai.client.token.usage), input and output.',
    labelNames: genAiTokenLabels,
    buckets: GEN_AI_TOKEN_BUCKETS,
    registers,
  });
  const gatewayTokens = batchedCounter({
    name: 'gateway_tokens_total',
    help: 'Tokens used, by agent, provider, model and type (input or output).',
    labelNames: ['agent', 'provider', 'model', 'type'],
    registers,
  });
  const cost = batchedCounter({
    name: 'gateway_cost_usd_total',
    help: 'Estimated cost in US dollars (the catalog prices), by agent, provider and model.',
    labelNames: ['agent', 'provider', 'model'],
    registers,
  });
  const tokenChild = childrenOf(caps, ['agent', 'provider', 'model'], ([agent = '', provider = '', model = '']) => ({
    genAiInput: genAiTokens({ ...genAiOf(provider, model), gen_ai_token_type: 'input' }),
    genAiOutput: genAiTokens({ ...genAiOf(provider, model), gen_ai_token_type: 'output' }),
    input: gatewayTokens({ agent, provider, model, type: 'input' }),
    output: gatewayTokens({ agent, provider, model, type: 'output' }),
    cost: cost({ agent, provider, model }),
  }));

  const genAiCallLabels = ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model', 'error_type'];
  const operationDuration = batchedHistogram({
    name: 'gen_ai_client_operation_duration_seconds',
    help: 'Duration of model calls (GenAI semantic conventions gen_ai.client.operation.duration); error_type on failures.',
    labelNames: genAiCallLabels,
    buckets: GEN_AI_DURATION_BUCKETS,
    registers,
  });
  const firstChunk = batchedHistogram({
    name: 'gen_ai_client_operation_time_to_first_chunk_seconds',
    help: 'Time from a model call to its first streamed output (gen_ai.client.operation.time_to_first_chunk).',
    labelNames: genAiCallLabels.slice(0, 3),
    buckets: GEN_AI_DURATION_BUCKETS,
    registers,
  });
  const callChild = childrenOf(caps, ['provider', 'model', 'error_type'], ([provider = '', model = '', error]) => ({
    duration: operationDuration(
      error === '' || error === undefined
        ? genAiOf(provider, model)
        : { ...genAiOf(provider, model), error_type: error },
    ),
    firstChunk: firstChunk(genAiOf(provider, model)),
  }));

  const toolCalls = batchedCounter({
    name: 'gateway_tool_calls_total',
    help: 'Tool calls run by agents, by tool and outcome (ok, or the error kind).',
    labelNames: ['tool', 'outcome'],
    registers,
  });
  const toolDuration = batchedHistogram({
    name: 'gateway_tool_call_duration_seconds',
    help: 'Duration of tool calls, by tool.',
    labelNames: ['tool'],
    buckets: TOOL_DURATION_BUCKETS,
    registers,
  });
  const toolChild = childrenOf(caps, ['tool', 'outcome'], ([tool = '', outcome = '']) => ({
    calls: toolCalls({ tool, outcome }),
    duration: toolDuration({ tool }),
  }));

  return {
    registry,
    totals,
    http(method, route, status, seconds) {
      totals.httpRequests += 1;
      const child = httpChild(method, route, String(status));
      child.requests.inc();
      child.duration.observe(seconds);
    },
    turn(agentId, finishReason) {
      totals.turns += 1;
      turnChild(agentId, finishReason).inc();
    },
    tokens(sample) {
      totals.inputTokens += sample.inputTokens;
      totals.outputTokens += sample.outputTokens;
      totals.costUsd += sample.costUsd;
      const child = tokenChild(sample.agentId, sample.provider, sample.model);
      child.genAiInput.observe(sample.inputTokens);
      child.genAiOutput.observe(sample.outputTokens);
      child.input.inc(sample.inputTokens);
      child.output.inc(sample.outputTokens);
      child.cost.inc(sample.costUsd);
    },
    modelCall(sample) {
      totals.modelCalls += 1;
      if (sample.errorKind !== undefined) totals.modelCallFailures += 1;
      const child = callChild(sample.provider, sample.model, sample.errorKind ?? '');
      child.duration.observe(sample.durationMs / 1000);
      if (sample.firstOutputMs !== undefined) child.firstChunk.observe(sample.firstOutputMs / 1000);
    },
    toolCall(sample) {
      totals.toolCalls += 1;
      if (!sample.ok) totals.toolFailures += 1;
      const child = toolChild(sample.toolName, sample.ok ? 'ok' : (sample.errorKind ?? 'error'));
      child.calls.inc();
      child.duration.observe(sample.durationMs / 1000);
    },
  };
}
