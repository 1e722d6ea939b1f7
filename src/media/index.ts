// Media: files under media.dir with a record each in the store, a time-to-live and a size cap, the sweep that deletes
// expired and orphaned files, and GET /media/:id and /media/:id/meta. Other modules save through `media.save`.
import { isAbsolute, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { CapabilityModule } from '../capability.js';
import type { GatewayConfig } from '../config/index.js';
import type { Recorder } from '../obs/index.js';
import type { RequestAuth, TokenService } from '../server/index.js';
import type { MediaPort } from '../store/index.js';
import { prepareMediaDir } from './media-files.js';
import { createMediaService, type MediaService } from './media-service.js';
import { createMediaSweeper } from './media-sweep.js';
import { mediaRoutes } from './routes.js';

export type { MediaMeta, MediaService } from './media-service.js';
export interface MediaModuleDeps {
  port: MediaPort;
  /** media: dir and sweepIntervalMs are read at startup, maxBytes and defaultTtlMs at each save. */
  config: { get(): Pick<GatewayConfig, 'media'> };
  /** media.dir defaults to `<dataDir>/media`; a relative one is taken from here too. */
  dataDir: string;
  recorder: Pick<Recorder, 'trajectory'>;
  auth: RequestAuth;
  tokens: Pick<TokenService, 'list'>;
  now: () => number;
  newId: () => string;
  log: Logger;
}

export interface MediaModule extends CapabilityModule {
  /** Where browser screenshots and PDFs and audio go (app.ts passes `media.save` to those modules). */
  readonly media: MediaService;
}

/** The media directory media.dir names: absolute as given, else under the data dir; null means `<dataDir>/media`. */
export function mediaDirOf(dir: string | null, dataDir: string): string {
  if (dir === null) return join(dataDir, 'media');
  return isAbsolute(dir) ? dir : resolve(dataDir, dir);
}

export function createMediaModule(deps: MediaModuleDeps): MediaModule {
  const { port, now, log } = deps;
  const startup = deps.config.get().media;
  const dir = mediaDirOf(startup.dir, deps.dataDir);
  const inFlight = new Set<string>();
  const sweeper = createMediaSweeper({ port, dir, intervalMs: startup.sweepIntervalMs, inFlight, now, log });
  const media: MediaService = {
    ...createMediaService({
      port,
      dir,
      dataDir: deps.dataDir,
      recorder: deps.recorder,
      inFlight,
      now,
      newId: deps.newId,
      log,
      limits: () => deps.config.get().media,
    }),
    sweep: sweeper.sweep,
  };
  return {
    name: 'media',
    media,
    routes: mediaRoutes({ auth: deps.auth, tokens: deps.tokens, media }),
    async start() {
      await prepareMediaDir(dir);
      sweeper.start();
    },
    stop: () => sweeper.stop(),
  };
}
