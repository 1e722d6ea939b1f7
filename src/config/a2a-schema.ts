// The a2a config section (src/a2a): which agents answer A2A clients, the remote A2A agents agents may delegate to, and
// the bounds of both.
import { z } from 'zod';
import { durationMs, positiveInt } from './schema-units.js';

const remoteName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'remote names use letters, digits, underscore or hyphen');

const remoteSchema = z.strictObject({
  /** The remote's agent card URL (e.g. https://host/.well-known/agent-card.json); its JSON-RPC interface is used. */
  url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(8_192),
  /** Sent with every request to the remote (the card fetch too), e.g. `Authorization: Bearer ${secret:NAME}`. */
  headers: z.record(z.string().min(1).max(256), z.string().max(8_192)).default({}),
  /** What the agent's model is told the remote does; absent: the card's own description. */
  description: z.string().min(1).max(2_000).optional(),
});

/** Bounds of A2A traffic, both ways. */
const a2aLimitsSchema = z.strictObject({
  /** Parts one incoming message may carry; more is refused (invalid params). */
  maxMessageParts: positiveInt.max(1_000).default(16),
  /** Characters of text (text parts plus JSON of data parts) one incoming message may carry; more is refused. */
  maxMessageChars: positiveInt.max(10_000_000).default(200_000),
  /** Characters of a task's reply artifact kept and sent; a longer reply is cut and the artifact says so. */
  maxArtifactChars: positiveInt.max(10_000_000).default(1_000_000),
  /** Tasks one ListTasks page holds at most (a larger pageSize is clamped to it). */
  maxPageSize: positiveInt.max(1_000).default(100),
  /** Finished tasks kept in the database for GetTask/ListTasks; past it the oldest finished ones are deleted. */
  maxTasksKept: positiveInt.max(1_000_000).default(10_000),
  /** Tasks one token may have running at once on this instance; one more is refused until one ends. */
  maxRunningTasksPerToken: positiveInt.max(10_000).default(16),
  /** Bytes of one remote answer (card or JSON-RPC reply) read at most; a larger one is a bounded tool error. */
  maxRemoteReplyBytes: positiveInt.max(64 * 1_048_576).default(1_048_576),
  /** How often a delegation polls a remote task that is not done yet (GetTask), in ms. */
  remotePollMs: durationMs(1).default(500),
});

export const a2aConfigSchema = z.strictObject({
  /** Agent ids served as A2A agents (cards and JSON-RPC at /a2a/<agentId>); default none. Ids of no configured or
   * active agent are not served. */
  expose: z
    .array(z.string().regex(/^[A-Za-z0-9._-]+$/, 'agent ids use letters, digits, dot, underscore or hyphen'))
    .max(1_000)
    .default([]),
  /** Remote A2A agents an agent delegates to by listing `a2a:<name>` in its tools. */
  remotes: z.record(remoteName, remoteSchema).default({}),
  limits: a2aLimitsSchema.prefault({}),
});

export type A2aConfig = z.infer<typeof a2aConfigSchema>;
export type A2aRemoteConfig = z.infer<typeof remoteSchema>;
