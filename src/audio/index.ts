// Audio: audio.transcribe through the speech-to-text engines of `audio.engines` (an OpenAI-compatible endpoint,
// pocketsphinx offline), after decoding with ffmpeg; each call records the voice evidence.
import type { Logger } from 'pino';
import type { CapabilityModule } from '../capability.js';
import type { GatewayConfig } from '../config/index.js';
import type { HealthSignalRecorder, Recorder } from '../obs/index.js';
import type { SessionPort } from '../store/index.js';
import type { KeyGrants } from '../sessions/index.js';
import { createAdmissionLimiter } from './limiter.js';
import { audioMethods, maxParamsBytesFor } from './methods.js';
import { createTranscribeService, type SaveMedia, type TranscribeService } from './transcribe-service.js';
import { createVoiceEvidence } from './voice-evidence.js';

export type { SaveMedia, TranscribeService } from './transcribe-service.js';
export { audioMethods, maxParamsBytesFor } from './methods.js';

/** Calls that may wait per slot when audio.maxWaiting is null. */
export const WAITING_PER_SLOT = 4;

export interface AudioModuleDeps {
  /** The live config: `audio`, and `providers` / `agents` for the keyed engine; read per call. */
  config: { get(): Pick<GatewayConfig, 'audio' | 'agents' | 'providers'> };
  /** For the owner check of a given sessionKey. */
  sessions: Pick<SessionPort, 'get'>;
  /** For the key check of a given sessionKey no session has yet. */
  grants: KeyGrants;
  recorder: Pick<Recorder, 'trajectory'>;
  signals: HealthSignalRecorder;
  /** Stores `save: true` audio as media; absent: such calls answer -32602. */
  saveMedia?: SaveMedia;
  now: () => number;
  log: Logger;
}

export interface AudioModule extends CapabilityModule {
  /** The transcription audio.transcribe runs, for other modules (a chat channel's voice messages). */
  readonly transcribe: TranscribeService;
}

export function createAudioModule(deps: AudioModuleDeps): AudioModule {
  const audioConfig = () => deps.config.get().audio;
  const limiter = createAdmissionLimiter(() => {
    const { maxConcurrent, maxWaiting, maxQueuedBytes } = audioConfig();
    return { maxConcurrent, maxWaiting: maxWaiting ?? WAITING_PER_SLOT * maxConcurrent, maxQueuedBytes };
  }, deps.now);
  const transcribe = createTranscribeService({
    config: () => deps.config.get(),
    limiter,
    evidence: createVoiceEvidence({ recorder: deps.recorder, signals: deps.signals, now: deps.now }),
    ...(deps.saveMedia === undefined ? {} : { saveMedia: deps.saveMedia }),
    log: deps.log,
  });
  return {
    name: 'audio',
    transcribe,
    methods: audioMethods({
      transcribe,
      sessions: deps.sessions,
      grants: deps.grants,
      maxAudioBytes: () => audioConfig().maxAudioBytes,
      maxParamsBytes: maxParamsBytesFor(audioConfig().maxAudioBytes),
      canSave: deps.saveMedia !== undefined,
    }),
  };
}
