// Counts what the event bus already carries: turns (message:sent), tokens and cost (observability:token_usage) and
// scheduled fires in progress (scheduler:job_started / job_completed).
import type { EventBus } from '../events/index.js';
import type { Instruments } from './instruments.js';

export interface BusMetrics {
  /** Scheduled fires this process started and has not finished. */
  schedulerFiresRunning(): number;
  stop(): void;
}

export function followBus(events: EventBus, instruments: Instruments): BusMetrics {
  const firing = new Set<string>();
  const unsubscribe = events.subscribe(function countEvent(event) {
    switch (event.name) {
      case 'message:sent':
        instruments.turn(event.payload.agentId, event.payload.finishReason);
        break;
      case 'observability:token_usage':
        instruments.tokens(event.payload);
        break;
      case 'scheduler:job_started':
        firing.add(event.payload.runId);
        break;
      case 'scheduler:job_completed':
        firing.delete(event.payload.runId);
        break;
      default:
        break;
    }
  });
  return { schedulerFiresRunning: () => firing.size, stop: unsubscribe };
}
