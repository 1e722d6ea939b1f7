// Heartbeat jobs: a fire's answer of exactly HEARTBEAT_OK delivers nothing, any other answer goes to the job's chat
// through the channels' delivery; a failed fire or delivery is alerted (event, warning log, the run entry's error).
import type { Logger } from 'pino';
import type { EventBus } from '../events/index.js';
import type { HeartbeatTarget, JobRecord } from '../store/index.js';

/** The answer that means "nothing needs attention": nothing is delivered (compared after trimming whitespace). */
export const HEARTBEAT_OK = 'HEARTBEAT_OK';

/** The prompt of a heartbeat job added without a message. */
export const DEFAULT_HEARTBEAT_PROMPT =
  'Heartbeat check: look at what you are keeping an eye on. If something needs attention, say what and why in a ' +
  `short message for the chat. If nothing does, answer exactly ${HEARTBEAT_OK} and nothing else.`;

/** What heartbeats need from the channels (src/channels' ChannelDelivery.deliver, and which connections exist). */
export interface HeartbeatDelivery {
  /** Resolves once delivered or given up on; never throws for a platform failure. */
  deliver(input: HeartbeatTarget & { text: string }): Promise<{ delivered: boolean; error?: string }>;
  /** Whether `channels.<id>` is configured (cron.add refuses a heartbeat naming any other). */
  hasChannel(channelId: string): boolean;
}

/** Heartbeats through the channels module's delivery; a channel exists when `channels.<id>` is configured. */
export function heartbeatsThrough(
  channels: Pick<HeartbeatDelivery, 'deliver'>,
  config: { get(): { channels: Readonly<Record<string, unknown>> } },
): HeartbeatDelivery {
  return {
    deliver: (input) => channels.deliver(input),
    hasChannel: (channelId) => Object.hasOwn(config.get().channels, channelId),
  };
}

export interface HeartbeatDeps {
  events: Pick<EventBus, 'emit'>;
  delivery: HeartbeatDelivery | undefined;
  log: Logger;
}

export function heartbeatAlert(deps: HeartbeatDeps, job: JobRecord, agentId: string, reason: string): void {
  deps.events.emit('scheduler:heartbeat_alert', { jobId: job.id, agentId, reason });
  deps.log.warn({ jobId: job.id, agentId, reason }, 'heartbeat alert');
}

/**
 * After a heartbeat turn answered: delivers the answer unless it is HEARTBEAT_OK. Resolves to the run entry's error
 * when the delivery failed (already alerted), else undefined. Never throws.
 */
export async function deliverHeartbeat(
  deps: HeartbeatDeps,
  job: JobRecord & { heartbeat: HeartbeatTarget },
  agentId: string,
  response: string,
): Promise<string | undefined> {
  const text = response.trim();
  if (text === HEARTBEAT_OK) return undefined;
  let outcome: { delivered: boolean; error?: string };
  if (text === '') outcome = { delivered: false, error: 'the turn answered nothing to deliver' };
  else if (deps.delivery === undefined) outcome = { delivered: false, error: 'no channel delivery is wired' };
  else {
    try {
      outcome = await deps.delivery.deliver({ ...job.heartbeat, text });
    } catch (error) {
      deps.log.error({ err: error, jobId: job.id }, 'heartbeat delivery threw');
      outcome = { delivered: false, error: 'the delivery failed unexpectedly' };
    }
  }
  if (outcome.delivered) {
    deps.events.emit('scheduler:heartbeat_delivered', { jobId: job.id, agentId });
    return undefined;
  }
  const reason = `heartbeat delivery to ${job.heartbeat.channelId} failed: ${outcome.error ?? 'not delivered'}`;
  heartbeatAlert(deps, job, agentId, reason);
  return reason;
}
