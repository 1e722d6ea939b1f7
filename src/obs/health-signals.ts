// Records fleet health signals (posture rows, voice, authoring, orchestrate, cron wake-gate, autonomy, lifecycle) through the obs port.
import type { ObsWrite } from '../store/index.js';
import type { BatchQueue } from './batch-queue.js';
import { SEVERITIES, SIGNAL_KIND, type Severity, type SignalKind } from './evidence/kinds.js';
import { scrubObject } from './scrub.js';

export interface HealthSignal {
  kind: SignalKind;
  /** Epoch ms; the recorder's clock when omitted. */
  ts?: number;
  agentId?: string;
  rootRunId?: string;
  severity?: Severity;
  /** Counts, booleans and ids only; scrubbed before it is stored. Shapes per kind: src/obs/evidence/README.md. */
  data?: Record<string, unknown>;
}

export interface HealthSignalRecorder {
  record(signal: HealthSignal): void;
}

export interface HealthSignalDeps {
  /** The obs write queue shared with delivery traces and diagnostics. */
  queue: BatchQueue<ObsWrite>;
  now: () => number;
}

/** Severity a signal is stored with: routine session_rebase continuations always ingest at info (spec). */
export function ingestSeverity(signal: HealthSignal): Severity {
  if (signal.kind === SIGNAL_KIND.sessionRebase) return 'info';
  return signal.severity !== undefined && SEVERITIES.includes(signal.severity) ? signal.severity : 'info';
}

export function createHealthSignalRecorder({ queue, now }: HealthSignalDeps): HealthSignalRecorder {
  return {
    record(signal) {
      queue.enqueue({
        type: 'health_signal',
        row: {
          ts: signal.ts ?? now(),
          kind: signal.kind,
          agentId: signal.agentId ?? null,
          rootRunId: signal.rootRunId ?? null,
          severity: ingestSeverity(signal),
          data: JSON.stringify(scrubObject(signal.data ?? {})),
        },
      });
    },
  };
}
