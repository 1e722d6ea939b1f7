// The audio and channels modules app-modules.ts lists, built together: a chat channel's voice messages are
// transcribed by the audio module's service, and its replies reach the turns, runs, media and learning built before.
import { randomUUID } from 'node:crypto';
import type { ModuleCore } from './app-core.js';
import { createAudioModule, type AudioModule } from './audio/index.js';
import {
  createChannelsModule,
  createPlatformAdapter,
  type AdapterFactory,
  type ChannelsModule,
} from './channels/index.js';
import type { LearningModule } from './learning/index.js';
import type { MediaModule } from './media/index.js';
import type { ObsModule } from './obs/index.js';
import type { RunsModule } from './runs/index.js';
import type { TurnService } from './turns/index.js';

export interface ChatModuleParts {
  turns: TurnService;
  runs: RunsModule;
  media: MediaModule;
  obs: ObsModule;
  learning: Pick<LearningModule, 'observe'>;
  /** Wraps the platform adapters (approvals: typed "approve <code>" answers picked out of chat messages). */
  wrapAdapter?: (factory: AdapterFactory) => AdapterFactory;
}

export function createChatModules(
  { configStore, store, tokenDirectory, recorder, events, coordination, now, child }: ModuleCore,
  { turns, runs, media, obs, learning, wrapAdapter }: ChatModuleParts,
): { audio: AudioModule; channels: ChannelsModule } {
  const { observability } = obs;
  const audio = createAudioModule({
    config: configStore,
    sessions: store.sessions,
    grants: tokenDirectory,
    recorder,
    signals: observability.signals,
    saveMedia: (input) => media.media.save(input),
    now,
    log: child('audio'),
  });
  // A chat message is a turn on the chat's session; its reply goes out through the connection's queue.
  const shared = configStore.get().coordination;
  const channels = createChannelsModule({
    config: configStore,
    createAdapter: wrapAdapter?.(createPlatformAdapter) ?? createPlatformAdapter,
    ...(shared.kind === 'redis'
      ? { inboundLeases: { leases: coordination.leases, ttlMs: shared.channelLeaseTtlMs } }
      : {}),
    turns,
    sessions: store.sessions,
    runControl: runs.runControl,
    transcribe: audio.transcribe,
    saveMedia: (input) => media.media.save(input),
    events,
    delivery: observability.delivery,
    observe: (observed) => learning.observe(observed),
    newId: randomUUID,
    now,
    log: child('channels'),
  });
  return { audio, channels };
}
