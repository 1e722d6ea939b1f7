// Records one transcription's content-free voice evidence: a trajectory record (obs.explain's voice block) and a
// health signal (obs.fleet.health's voice_health finding).
import { SIGNAL_KIND, TRAJECTORY_KIND, type HealthSignalRecorder, type Recorder } from '../obs/index.js';
import type { EngineIdentity, TranscriptionErrorKind } from './transcriber.js';

export interface VoiceRecord {
  sessionKey: string;
  traceId: string;
  engine: EngineIdentity;
  durationMs?: number;
  /** Absent when the engine transcribed. */
  errorKind?: TranscriptionErrorKind;
}

export interface VoiceEvidenceDeps {
  recorder: Pick<Recorder, 'trajectory'>;
  signals: HealthSignalRecorder;
  now: () => number;
}

export type VoiceEvidence = (record: VoiceRecord) => void;

export function createVoiceEvidence({ recorder, signals, now }: VoiceEvidenceDeps): VoiceEvidence {
  return function recordVoice({ sessionKey, traceId, engine, durationMs, errorKind }) {
    const outcome = errorKind === undefined ? 'ok' : 'failed';
    // invalid_audio is the client's input, not a spec errorKind: the call is recorded as failed without a kind.
    const voiceErrorKind = errorKind === undefined || errorKind === 'invalid_audio' ? {} : { errorKind };
    recorder.trajectory({
      sessionKey,
      traceId,
      kind: TRAJECTORY_KIND.voice,
      ts: now(),
      data: {
        provider: engine.provider,
        keyless: engine.keyless,
        ...(engine.model === undefined ? {} : { model: engine.model }),
        ...(durationMs === undefined ? {} : { durationMs }),
        // Spec: costUsd is 0 for a keyless call and omitted for a keyed one.
        ...(engine.keyless ? { costUsd: 0 } : {}),
        ...(engine.source === undefined ? {} : { source: engine.source }),
        outcome,
        ...voiceErrorKind,
      },
    });
    // The fleet counts degraded voice turns: undecodable client input says nothing about the engines' health.
    if (errorKind === 'invalid_audio') return;
    signals.record({
      kind: SIGNAL_KIND.voice,
      severity: outcome === 'ok' ? 'info' : 'warning',
      data: { provider: engine.provider, outcome, ...voiceErrorKind },
    });
  };
}
