// Turns detections into security events: one per detection, and one per window when an agent's detections pass the rate.
import type { BeforeModelInput, ModelContextAddition, TurnHookContext } from '../turns/types.js';
import type { EventBus } from '../events/index.js';
import {
  DEFAULT_INJECTION_SCAN_CHARS,
  detectInjection,
  warmInjectionPatterns,
  type InjectionResult,
} from './injection.js';
import { isWebhookChannel } from './trust.js';

export interface InjectionRate {
  /** Detections per agent a window tolerates; one more emits security:injection_rate_exceeded. */
  maxDetections: number;
  /** Length of one window in ms; the count starts again with the first detection after it ends. */
  windowMs: number;
}

export const DEFAULT_INJECTION_RATE: InjectionRate = { maxDetections: 5, windowMs: 60_000 };

/**
 * The patterns are warmed (about 100 ms of regex compilation) this long after the monitor is built: off the request
 * path, and off the start too, whose first /health would otherwise wait for it.
 */
const WARM_AFTER_MS = 1_000;

/** Where scanned text came from, as named in security:injection_detected's `source`. */
export type InjectionSource = 'user_message' | 'webhook' | 'tool_output' | 'memory_store';

export interface InjectionScanRef {
  agentId: string;
  sessionKey: string;
  source: InjectionSource;
}

export interface InjectionMonitorDeps {
  events: Pick<EventBus, 'emit'>;
  now: () => number;
  rate?: InjectionRate;
  /** Characters scanned per text at most (head and tail halves). */
  maxScanChars?: number;
}

export interface InjectionMonitor {
  /** Scans `text`; a detection emits security:injection_detected and counts towards the agent's rate. */
  inspect(text: string, ref: InjectionScanRef): InjectionResult;
}

/** A fixed window per agent: O(1) state each, and "once per window" falls out of one flag. */
interface AgentWindow {
  startedAt: number;
  detections: number;
  isReported: boolean;
}

export function createInjectionMonitor({
  events,
  now,
  rate = DEFAULT_INJECTION_RATE,
  maxScanChars = DEFAULT_INJECTION_SCAN_CHARS,
}: InjectionMonitorDeps): InjectionMonitor {
  const windows = new Map<string, AgentWindow>();
  setTimeout(warmInjectionPatterns, WARM_AFTER_MS).unref();

  function count(agentId: string): void {
    const at = now();
    let window = windows.get(agentId);
    if (window === undefined || at - window.startedAt >= rate.windowMs) {
      window = { startedAt: at, detections: 0, isReported: false };
      windows.set(agentId, window);
    }
    window.detections += 1;
    if (window.detections > rate.maxDetections && !window.isReported) {
      window.isReported = true;
      events.emit('security:injection_rate_exceeded', {
        agentId,
        detections: window.detections,
        windowMs: rate.windowMs,
      });
    }
  }

  return {
    inspect(text, { agentId, sessionKey, source }) {
      const result = detectInjection(text, maxScanChars);
      if (result.detected) {
        events.emit('security:injection_detected', { agentId, sessionKey, patterns: result.patterns, source });
        count(agentId);
      }
      return result;
    },
  };
}

/** The source of a turn's inbound message: a signed webhook's session, else a user's message. */
function inboundSource(ctx: Pick<TurnHookContext, 'keyParts' | 'clientId'>): InjectionSource {
  return isWebhookChannel(ctx.keyParts.channelId, ctx.clientId) ? 'webhook' : 'user_message';
}

/**
 * A `beforeModel` hook that scans the turn's inbound message once (step 1 only; later steps carry the same
 * message) and adds no context. Compose it in front of the module's recall hook.
 */
export function injectionScanHook(monitor: InjectionMonitor) {
  return async function scanInboundMessage(
    input: BeforeModelInput,
    ctx: TurnHookContext,
  ): Promise<ModelContextAddition | undefined> {
    if (input.step === 1)
      monitor.inspect(input.message, { agentId: ctx.agentId, sessionKey: ctx.sessionKey, source: inboundSource(ctx) });
    return undefined;
  };
}
