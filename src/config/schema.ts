// The configuration file's schema: every key, default and bound of the spec and DESIGN.md §2.
import { z } from 'zod';
import { PROVIDER_TABLE, PROVIDER_TYPES } from '../provider-table.js';
import {
  approvalsConfigSchema,
  audioConfigSchema,
  browserConfigSchema,
  mediaConfigSchema,
  mcpConfigSchema,
  memoryConfigSchema,
  obsConfigSchema,
  orchestrateConfigSchema,
  skillsConfigSchema,
  learningConfigSchema,
  schedulerConfigSchema,
  channelConfigSchema,
  terminalConfigSchema,
  otelConfigSchema,
  budgetsConfigSchema,
  runsConfigSchema,
  auditConfigSchema,
  a2aConfigSchema,
  sessionsConfigSchema,
} from './capability-schemas.js';
import { metricsConfigSchema } from './metrics-schema.js';
import { durationMs, positiveInt } from './schema-units.js';

export * from './capability-schemas.js';
import { coordinationConfigSchema, storageConfigSchema } from './storage-schema.js';

export * from './token-schema.js';
import { tokenConfigSchema } from './token-schema.js';

const tlsSchema = z.strictObject({
  certPath: z.string().min(1).nullable().default(null),
  keyPath: z.string().min(1).nullable().default(null),
  caPath: z.string().min(1).nullable().default(null),
  requireClientCert: z.boolean().default(false),
});

const webhookSchema = z.strictObject({
  secret: z.string().min(16, 'must be at least 16 characters'),
  algorithm: z.enum(['sha256', 'sha384', 'sha512']).default('sha256'),
  agentId: z.string().min(1).default('default'),
  /** Characters of the agent message built from one delivery (DESIGN §3 "webhook replay"); longer ones get 413. */
  maxMessageChars: positiveInt.min(1_000).max(10_000_000).default(32_000),
});

/** A browser origin exactly as the Origin header carries it (RFC 6454): scheme, host and optional port, no path. */
const corsOriginSchema = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}, 'must be an origin like https://app.example.com (lower-case scheme and host, optional port, no path or trailing slash)');

/**
 * Browser origins allowed to call /v1 and /api (DESIGN §3 "CORS"); [] (the default) = CORS off. Each is echoed
 * exactly, never as `*`, since replies also allow credentials. Applies at once when the config changes.
 */
const corsSchema = z.strictObject({ origins: z.array(corsOriginSchema).max(1_000).default([]) });

export const gatewaySchema = z.strictObject({
  enabled: z.boolean().default(true),
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65535).default(4766),
  tokens: z.array(tokenConfigSchema).default([]),
  rateLimit: z
    .strictObject({ windowMs: durationMs(1).default(60_000), maxRequests: positiveInt.default(100) })
    .prefault({}),
  httpBodyLimitBytes: positiveInt.default(1_048_576),
  /** Sockets beyond this many are closed as they arrive (DESIGN §3 "connections"). */
  maxConnections: positiveInt.default(10_000),
  /** A socket that has not sent a complete request head in this time is closed (DESIGN §3 "connections"). */
  headersTimeoutMs: durationMs(1).default(10_000),
  /** Time to receive a whole request body once its head is in; unset means 300000 (server/limits.ts). */
  requestTimeoutMs: durationMs(1).optional(),
  /**
   * Of maxConnections, sockets kept for /health, /ready and requests with a valid token: with more than
   * maxConnections − reservedConnections open, other requests are refused 503 (DESIGN §3 "connections"). Unset: a tenth.
   */
  reservedConnections: z.number().int().min(0).optional(),
  /** Sockets one client address may hold before its requests, too, need a valid token (/health and /ready excepted). */
  maxConnectionsPerAddress: positiveInt.default(1_000),
  /** A request without a valid token (the webhook, one refused 401) must deliver its whole body this soon after its head. */
  unauthenticatedBodyTimeoutMs: durationMs(1).default(10_000),
  wsHeartbeatMs: durationMs(0).default(30_000),
  wsMessageRateLimit: z
    .strictObject({ maxMessages: positiveInt.default(600), windowMs: durationMs(1).default(60_000) })
    .prefault({}),
  wsMaxMessageBytes: positiveInt.default(1_048_576),
  maxBatchSize: positiveInt.default(50),
  web: z.strictObject({ enabled: z.boolean().default(true) }).prefault({}),
  webDistPath: z.string().min(1).nullable().default(null),
  tls: tlsSchema.prefault({}),
  webhook: webhookSchema.optional(),
  cors: corsSchema.prefault({}),
  /**
   * /api/events keeps this many recent events to replay to a client reconnecting with Last-Event-ID (DESIGN §3
   * "SSE event ids"); 0 = no replay. Applies at the next restart.
   */
  sseReplayEvents: z.number().int().min(0).max(100_000).default(1_000),
  /** Turns (and resets, compactions) that may wait for one session behind the running one, per instance; more are refused. */
  maxWaitingTurnsPerSession: z.number().int().min(0).max(10_000).default(16),
});

const modelCostSchema = z.strictObject({
  input: z.number().min(0).default(0),
  output: z.number().min(0).default(0),
  cacheRead: z.number().min(0).default(0),
  cacheWrite: z.number().min(0).default(0),
});

export const modelConfigSchema = z.strictObject({
  id: z.string().min(1),
  displayName: z.string().min(1).optional(),
  contextWindow: positiveInt.default(128_000),
  maxTokens: positiveInt.default(4096),
  input: z.array(z.enum(['text', 'image', 'audio'])).default(['text']),
  reasoning: z.boolean().default(false),
  cost: modelCostSchema.prefault({}),
  /** How capable the model is: reflect synthesis abstains on small and nano, the pipeline authoring gate reads it. */
  tier: z.enum(['frontier', 'small', 'nano']).default('frontier'),
});

export const providerConfigSchema = z.strictObject({
  type: z.enum(PROVIDER_TYPES),
  baseUrl: z.url().optional(),
  apiKey: z.string().optional(),
  timeoutMs: durationMs(1).default(120_000),
  /**
   * UTF-8 bytes of one reply's text, reasoning and tool-call arguments after which the call is cut and ends as
   * `length`. 2 MiB holds a 128k-token answer at 16 bytes a token, far past any real model's output.
   */
  maxResponseBytes: positiveInt.max(1_073_741_824).default(2_097_152),
  models: z.array(modelConfigSchema).default([]),
});

/**
 * A tool call that waits for an operator (src/approvals): a tool name, or a tool with argument patterns. Each
 * pattern is matched against the whole value of that argument (a non-string value as its JSON); `*` matches any
 * run of characters. Every listed argument must match.
 */
export const approvalRuleSchema = z.union([
  z.string().min(1).max(256),
  z.strictObject({
    tool: z.string().min(1).max(256),
    args: z.record(z.string().min(1).max(256), z.string().max(4_096)).optional(),
  }),
]);

export const agentConfigSchema = z.strictObject({
  name: z.string().min(1),
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  systemPrompt: z.string().default('You are a helpful assistant.'),
  maxSteps: positiveInt.max(100).default(8),
  tools: z.array(z.string().min(1)).default([]),
  budget: z
    .strictObject({
      maxTokensPerTurn: positiveInt.default(200_000),
      /** One tool call's time limit; unset: 30 s (agents/tools/tool-registry.ts DEFAULT_TOOL_LIMITS). */
      toolTimeoutMs: durationMs(1).optional(),
      /** Characters of a tool result the model sees; unset: 16,000. */
      maxToolResultChars: positiveInt.max(10_000_000).optional(),
      /** The same tool call this many times in one turn ends it with context_loop; unset: 3 (turns/limits.ts). */
      loopRepeatLimit: positiveInt.min(2).max(100).optional(),
    })
    .prefault({}),
  fallbackModels: z.array(z.string().regex(/^[^/]+\/.+$/, 'must be "<provider>/<modelId>"')).default([]),
  suspended: z.boolean().default(false),
  requireApproval: z.array(approvalRuleSchema).max(1_000).default([]),
  /** Skills the agent is offered (src/skills): their names, or "*" for every loaded skill and learned procedure. */
  skills: z.union([z.literal('*'), z.array(z.string().min(1).max(64)).max(1_000)]).default([]),
});

export const embeddingsConfigSchema = z.strictObject({
  provider: z.string().min(1),
  model: z.string().min(1),
});

/** The OpenAI-compatible API (`/v1`). */
export const openAiConfigSchema = z.strictObject({
  /**
   * A chat completion is a session of its own (spec rule 2) that nothing can continue, so by default it stores no
   * session row or transcript; evidence, token usage and audit are recorded either way. true: stored like any session.
   */
  storeTranscripts: z.boolean().default(false),
});

/** Kept POST /v1/responses objects (GET /v1/responses/:id, previous_response_id). */
export const responsesConfigSchema = z.strictObject({
  /** Days a response stays readable and continuable after it was created; older ones answer 404 and are purged. */
  ttlDays: positiveInt.max(36_500).default(30),
  /** Background responses (`background: true`) one token may have running at once on each instance; more are refused 429. */
  maxBackgroundPerToken: positiveInt.max(10_000).default(16),
});

const idKey = z.string().regex(/^[A-Za-z0-9._-]+$/, 'keys use letters, digits, dot, underscore or hyphen');

export const configSchema = z
  .strictObject({
    gateway: gatewaySchema.prefault({}),
    providers: z.record(idKey, providerConfigSchema).default({}),
    embeddings: embeddingsConfigSchema.optional(),
    agents: z.record(idKey, agentConfigSchema).default({}),
    openai: openAiConfigSchema.prefault({}),
    responses: responsesConfigSchema.prefault({}),
    memory: memoryConfigSchema.prefault({}),
    approvals: approvalsConfigSchema.prefault({}),
    scheduler: schedulerConfigSchema.prefault({}),
    audio: audioConfigSchema.prefault({}),
    media: mediaConfigSchema.prefault({}),
    browser: browserConfigSchema.prefault({}),
    storage: storageConfigSchema.default({ kind: 'sqlite' }),
    coordination: coordinationConfigSchema.default({ kind: 'local' }),
    obs: obsConfigSchema.prefault({}),
    mcp: mcpConfigSchema.prefault({}),
    orchestrate: orchestrateConfigSchema.prefault({}),
    skills: skillsConfigSchema.prefault({}),
    learning: learningConfigSchema.prefault({}),
    channels: z.record(idKey, channelConfigSchema).default({}),
    terminal: terminalConfigSchema.prefault({}),
    otel: otelConfigSchema.prefault({}),
    budgets: budgetsConfigSchema,
    metrics: metricsConfigSchema.prefault({}),
    runs: runsConfigSchema.prefault({}),
    audit: auditConfigSchema.prefault({}),
    a2a: a2aConfigSchema.prefault({}),
    sessions: sessionsConfigSchema.prefault({}),
  })
  .superRefine(function checkCrossReferences(config, ctx) {
    const seenTokenIds = new Set<string>();
    config.gateway.tokens.forEach((token, index) => {
      if (seenTokenIds.has(token.id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['gateway', 'tokens', index, 'id'],
          message: `duplicate token id '${token.id}'`,
        });
      }
      seenTokenIds.add(token.id);
    });
    const { tls } = config.gateway;
    if ((tls.certPath === null) !== (tls.keyPath === null)) {
      ctx.addIssue({ code: 'custom', path: ['gateway', 'tls'], message: 'certPath and keyPath must be set together' });
    }
    if (tls.requireClientCert && (tls.caPath === null || tls.certPath === null)) {
      ctx.addIssue({
        code: 'custom',
        path: ['gateway', 'tls', 'requireClientCert'],
        message: 'needs certPath, keyPath and caPath (the authority that signs client certificates)',
      });
    }
    for (const [agentId, agent] of Object.entries(config.agents)) {
      if (agent.provider !== undefined && !(agent.provider in config.providers)) {
        ctx.addIssue({
          code: 'custom',
          path: ['agents', agentId, 'provider'],
          message: `unknown provider '${agent.provider}'`,
        });
      }
    }
    if (config.embeddings && !(config.embeddings.provider in config.providers)) {
      ctx.addIssue({
        code: 'custom',
        path: ['embeddings', 'provider'],
        message: `unknown provider '${config.embeddings.provider}'`,
      });
    }
    // Refused with the change, as embeddings apply live: the provider table says which types cannot embed.
    const embeddingsType = config.embeddings && config.providers[config.embeddings.provider]?.type;
    if (config.embeddings && embeddingsType && !PROVIDER_TABLE[embeddingsType].canEmbed) {
      ctx.addIssue({
        code: 'custom',
        path: ['embeddings', 'provider'],
        message: `'${config.embeddings.provider}' is ${/^[aeiou]/.test(embeddingsType) ? 'an' : 'a'} ${embeddingsType} provider, which has no embeddings endpoint`,
      });
    }
    // Channels: the agent each connection answers with, and the secret its mode needs.
    for (const [channelId, channel] of Object.entries(config.channels)) {
      const at = (key: string, message: string) =>
        ctx.addIssue({ code: 'custom', path: ['channels', channelId, key], message });
      if (!(channel.agentId in config.agents)) at('agentId', `unknown agent '${channel.agentId}'`);
      if (channel.kind === 'telegram' && channel.mode === 'webhook' && channel.webhookSecret === undefined)
        at('webhookSecret', 'is required in webhook mode');
      if (channel.kind === 'slack' && channel.mode === 'events' && channel.signingSecret === undefined)
        at('signingSecret', 'is required in events mode');
      if (channel.kind === 'slack' && channel.mode === 'socket' && channel.appToken === undefined)
        at('appToken', 'is required in socket mode');
    }
    config.audio.engines.forEach((engine, index) => {
      if (
        engine.kind === 'openai-compatible' &&
        engine.provider !== undefined &&
        !(engine.provider in config.providers)
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['audio', 'engines', index, 'provider'],
          message: `unknown provider '${engine.provider}'`,
        });
      }
    });
  });

export type GatewayConfig = z.infer<typeof configSchema>;
export type GatewaySection = GatewayConfig['gateway'];
export type TokenConfig = z.infer<typeof tokenConfigSchema>;
export type ProviderConfig = z.infer<typeof providerConfigSchema>;
export type AgentConfig = z.infer<typeof agentConfigSchema>;
export type MemoryConfig = z.infer<typeof memoryConfigSchema>;
export type ApprovalRule = z.infer<typeof approvalRuleSchema>;
export type ApprovalsConfig = z.infer<typeof approvalsConfigSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type SchedulerConfig = z.infer<typeof schedulerConfigSchema>;
export type AudioConfig = z.infer<typeof audioConfigSchema>;
export type CoordinationConfig = z.infer<typeof coordinationConfigSchema>;
export type BrowserConfig = z.infer<typeof browserConfigSchema>;
