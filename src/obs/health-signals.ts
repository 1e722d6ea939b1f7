// Records fleet health signals (posture rows, voice, authoring, orchestrate, cron wake-gate, autonomy, lifecycle) to SQLite.
import type { SqliteDatabase } from '../store/sqlite/index.js';
import type { BatchWriter } from './batch-writer.js';
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
  db: SqliteDatabase;
  writer: BatchWriter;
  now: () => number;
}

/** Severity a signal is stored with: routine session_rebase continuations always ingest at info (spec). */
export function ingestSeverity(signal: HealthSignal): Severity {
  if (signal.kind === SIGNAL_KIND.sessionRebase) return 'info';
  return signal.severity !== undefined && SEVERITIES.includes(signal.severity) ? signal.severity : 'info';
}

export function createHealthSignalRecorder({ db, writer, now }: HealthSignalDeps): HealthSignalRecorder {
  const insert = db.prepare('INSERT INTO health_signals (ts, kind, agent_id, root_run_id, severity, data) VALUES (?, ?, ?, ?, ?, ?)');
  return {
    record(signal) {
      const row = [signal.ts ?? now(), signal.kind, signal.agentId ?? null, signal.rootRunId ?? null, ingestSeverity(signal), JSON.stringify(scrubObject(signal.data ?? {}))] as const;
      writer.enqueue(() => insert.run(...row));
    },
  };
}
