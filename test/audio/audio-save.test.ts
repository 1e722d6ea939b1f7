// audio.transcribe with `save: true`: the audio module built over a real SQLite store and dispatcher, its saveMedia
// dependency a small function writing files to a temp dir (the gateway wires the media store there).
import { createEventBus } from '../../src/events/index.js';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAudioModule, type SaveMedia } from '../../src/audio/index.js';
import { createObsModule, createRecorder, type ObsModule, type Recorder } from '../../src/obs/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { createDispatcher, createRegistry, type DispatchContext, type Dispatcher } from '../../src/rpc/index.js';
import { createTokenDirectory } from '../../src/server/index.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import type { StorePorts } from '../../src/store/index.js';
import { validateConfig } from '../../src/config/index.js';
import { PHRASE, speak, type SpokenAudio } from './speech-fixtures.js';

interface Saved {
  id: string;
  contentType: string;
  origin?: { sessionKey: string; traceId?: string; toolName?: string };
}

describe('audio.transcribe save: true', () => {
  const log = createLogger({ level: 'silent' });
  const config = validateConfig({ audio: { engines: [{ kind: 'pocketsphinx' }] } }, 'test');
  let dir: string;
  let store: StorePorts & { close(): Promise<void> };
  let recorder: Recorder;
  let obs: ObsModule;
  let speech: SpokenAudio;
  const saved: Saved[] = [];

  const saveMedia: SaveMedia = async ({ data, contentType, origin }) => {
    const id = `media-${saved.length + 1}.wav`;
    await writeFile(join(dir, id), data);
    saved.push({ id, contentType, ...(origin === undefined ? {} : { origin }) });
    return { id };
  };

  function dispatcherWith(save: SaveMedia | undefined): Dispatcher {
    const audio = createAudioModule({
      config: { get: () => config },
      sessions: store.sessions,
      grants: createTokenDirectory({ configTokens: () => [], store: store.tokens, now: Date.now }),
      recorder,
      signals: obs.observability.signals,
      now: Date.now,
      log,
      ...(save === undefined ? {} : { saveMedia: save }),
    });
    return createDispatcher({
      registry: createRegistry([...(obs.methods ?? []), ...(audio.methods ?? [])]),
      maxBatchSize: 10,
    });
  }
  const context: DispatchContext = {
    caller: { clientId: 'tester', scopes: ['*'] },
    transport: 'http',
    log,
    signal: new AbortController().signal,
    traceId: 'trace-save',
  };
  const call = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audio-save-'));
    store = openSqliteStore({ path: join(dir, 'gateway.db'), log });
    recorder = createRecorder({ port: store.evidence, log });
    obs = createObsModule({
      store,
      events: createEventBus({ now: Date.now, log }),
      recorder,
      now: Date.now,
      newId: randomUUID,
      log,
    });
    speech = await speak(PHRASE);
  }, 30_000);

  afterAll(async () => {
    await obs?.stop?.();
    await recorder?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('stores the decoded WAV as media with its origin and answers the mediaId beside the text', async () => {
    const dispatcher = dispatcherWith(saveMedia);
    const response = await dispatcher.dispatch(
      call('audio.transcribe', { audio: speech.opus.toString('base64'), save: true }),
      context,
    );
    expect(response).toMatchObject({
      result: { text: expect.stringContaining('president'), mediaId: 'media-1.wav', durationMs: expect.any(Number) },
    });
    expect(saved).toEqual([
      {
        id: 'media-1.wav',
        contentType: 'audio/wav',
        origin: { sessionKey: 'default:tester:audio', traceId: 'trace-save', toolName: 'audio.transcribe' },
      },
    ]);
    const file = await readFile(join(dir, 'media-1.wav'));
    expect(file.toString('ascii', 0, 4)).toBe('RIFF');
    // 16 kHz mono 16-bit: the format every engine is given.
    expect([file.readUInt16LE(22), file.readUInt32LE(24), file.readUInt16LE(34)]).toEqual([1, 16_000, 16]);
  }, 60_000);

  it('saves nothing without save: true', async () => {
    const before = saved.length;
    const response = await dispatcherWith(saveMedia).dispatch(
      call('audio.transcribe', { audio: speech.wav.toString('base64'), mimeType: 'audio/wav' }),
      context,
    );
    expect(response).toMatchObject({ result: { text: expect.any(String) } });
    expect(response).not.toHaveProperty('result.mediaId');
    expect(saved).toHaveLength(before);
  }, 60_000);

  it('refuses save: true with -32602 when no media store is wired', async () => {
    const response = await dispatcherWith(undefined).dispatch(
      call('audio.transcribe', { audio: speech.wav.toString('base64'), save: true }),
      context,
    );
    expect(response).toMatchObject({ error: { code: -32602, data: { kind: 'invalid_params', param: 'save' } } });
  });
});
