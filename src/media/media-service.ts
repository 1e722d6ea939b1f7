// Saves media files (size cap, time-to-live, the offload evidence) and looks them up for the routes: 404 unknown, 410 expired.
import { createHash } from 'node:crypto';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { Logger } from 'pino';
import { invalidMediaId, invalidParams, mediaExpired, mediaNotFound, mediaTooLarge } from '../errors.js';
import { TRAJECTORY_KIND, type Recorder } from '../obs/index.js';
import type { MediaPort, MediaRecord } from '../store/index.js';
import { removeMediaFile, writeAtomically } from './media-files.js';
import { isMediaId, newMediaId, recordedContentType, servedContentType } from './media-id.js';
import type { MediaSweepResult } from './media-sweep.js';

/** DESIGN §3 "media metadata": what `/media/:id/meta` answers and `save` resolves to. */
export interface MediaMeta {
  id: string;
  contentType: string;
  size: number;
  /** ISO 8601. */
  savedAt: string;
  /** ISO 8601; null: never expires. */
  expiresAt: string | null;
}

/** The turn a file belongs to: its save is recorded as `offload` evidence there, so obs.explain lists it. */
export interface MediaOrigin {
  sessionKey: string;
  traceId?: string;
  toolName?: string;
}

/**
 * Who asks for a file: a token, by id, and whether it grants admin; or `anyone` on a gateway with no token at all,
 * where the routes are open (spec: "bearer, optional").
 */
export type MediaReader = { clientId: string; isAdmin: boolean } | 'anyone';

export interface MediaSaveInput {
  data: Buffer;
  /**
   * The token id the file belongs to: the caller for a method's save, the session's owner for a tool's save in a
   * turn. Only it and admin callers are served the file.
   */
  ownerId: string;
  /** '' when unknown: the id's extension then decides how it is served. */
  contentType: string;
  /** Time-to-live in ms; absent: media.defaultTtlMs; null: never expires. */
  ttlMs?: number | null;
  origin?: MediaOrigin;
}

/** A stored, unexpired file: its metadata and where it is (`name` is the file's name inside `dir`). */
export interface MediaFile {
  meta: MediaMeta;
  dir: string;
  name: string;
}

export interface MediaService {
  /** Rejects with `payload_too_large` over media.maxBytes and `invalid_params` for a malformed type or ttlMs. */
  save(input: MediaSaveInput): Promise<MediaMeta>;
  /**
   * Rejects with `invalid_params` (malformed id), `not_found` (also another token's file, so a reader cannot tell
   * it exists) or `gone` (time-to-live passed, swept or not).
   */
  meta(id: string, reader: MediaReader): Promise<MediaMeta>;
  /** As meta(), plus where the file is for streaming it. */
  open(id: string, reader: MediaReader): Promise<MediaFile>;
  /** Runs the sweep now (the timer runs it every media.sweepIntervalMs): expired files and records, then orphans. */
  sweep(): Promise<MediaSweepResult>;
}

export interface MediaServiceDeps {
  port: MediaPort;
  /** Absolute, prepared by the module (0700). */
  dir: string;
  /** The data dir, so the evidence names the file relative to it. */
  dataDir: string;
  /** Read per save, so a config change applies to the next one; defaultTtlMs 0: no expiry. */
  limits: () => { maxBytes: number; defaultTtlMs: number };
  recorder: Pick<Recorder, 'trajectory'>;
  /** Ids being written: the sweep leaves their files alone until their record exists. */
  inFlight: Set<string>;
  now: () => number;
  newId: () => string;
  log: Logger;
}

function toMeta(record: MediaRecord): MediaMeta {
  return {
    id: record.id,
    contentType: servedContentType(record.id, record.contentType),
    size: record.size,
    savedAt: new Date(record.savedAt).toISOString(),
    expiresAt: record.expiresAt === null ? null : new Date(record.expiresAt).toISOString(),
  };
}

/** A file without an owner (saved before owners were recorded) is the admins' alone. */
function mayRead(record: MediaRecord, reader: MediaReader): boolean {
  return reader === 'anyone' || reader.isAdmin || (record.ownerId !== null && record.ownerId === reader.clientId);
}

function checkedTtlMs(ttlMs: number | null | undefined, defaultTtlMs: number): number | null {
  if (ttlMs === undefined) return defaultTtlMs === 0 ? null : defaultTtlMs;
  if (ttlMs !== null && (!Number.isSafeInteger(ttlMs) || ttlMs < 1))
    throw invalidParams('ttlMs must be a positive whole number of ms, or null', 'ttlMs');
  return ttlMs;
}

export function createMediaService(deps: MediaServiceDeps): Omit<MediaService, 'sweep'> {
  const { port, dir, now, inFlight } = deps;

  /** The path evidence carries: relative to the data dir when the media dir is inside it, else the file's name. */
  function diskPathRel(id: string): string {
    const path = relative(deps.dataDir, join(dir, id));
    return path.startsWith(`..${sep}`) || isAbsolute(path) ? id : path.split(sep).join('/');
  }

  function recordOffload(origin: MediaOrigin, record: MediaRecord, data: Buffer): void {
    deps.recorder.trajectory({
      sessionKey: origin.sessionKey,
      traceId: origin.traceId ?? '',
      kind: TRAJECTORY_KIND.offload,
      ts: record.savedAt,
      data: {
        ...(origin.toolName === undefined ? {} : { toolName: origin.toolName }),
        diskPathRel: diskPathRel(record.id),
        bytes: record.size,
        digest: `sha256:${createHash('sha256').update(data).digest('hex').slice(0, 16)}`,
        resolved: true,
        mediaId: record.id,
      },
    });
  }

  async function storedRecord(id: string, reader: MediaReader): Promise<MediaRecord> {
    if (!isMediaId(id)) throw invalidMediaId();
    const record = await port.get(id);
    // Another token's file answers as an unknown one, before its expiry is looked at: 404 either way, never 403 or 410.
    if (record === undefined || !mayRead(record, reader)) throw mediaNotFound(id);
    // Spec: 410 once the time-to-live has passed, also before the sweep has deleted the file.
    if (record.expiresAt !== null && record.expiresAt <= now()) throw mediaExpired(id);
    return record;
  }

  return {
    async save({ data, contentType, ttlMs, origin, ownerId }) {
      const limits = deps.limits();
      if (data.length > limits.maxBytes) throw mediaTooLarge(data.length, limits.maxBytes);
      const recorded = recordedContentType(contentType);
      const ttl = checkedTtlMs(ttlMs, limits.defaultTtlMs);
      const id = newMediaId(deps.newId, recorded);
      const savedAt = now();
      const record: MediaRecord = {
        id,
        contentType: recorded,
        size: data.length,
        savedAt,
        expiresAt: ttl === null ? null : savedAt + ttl,
        ownerId,
      };
      inFlight.add(id);
      try {
        await writeAtomically(dir, id, data);
        try {
          await port.create(record);
        } catch (error) {
          await removeMediaFile(dir, id);
          throw error;
        }
      } finally {
        inFlight.delete(id);
      }
      if (origin !== undefined) recordOffload(origin, record, data);
      deps.log.debug({ id, size: record.size, contentType: recorded }, 'media saved');
      return toMeta(record);
    },
    meta: async (id, reader) => toMeta(await storedRecord(id, reader)),
    async open(id, reader) {
      const record = await storedRecord(id, reader);
      return { meta: toMeta(record), dir, name: record.id };
    },
  };
}
