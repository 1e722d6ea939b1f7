// A media file belongs to the token that saved it: GET /media/:id and /meta answer another non-admin token 404, the
// same as an unknown id (no existence oracle, also once expired); an admin token reaches every file, and a file saved
// before owners were recorded is the admins' alone. Saved through audio.transcribe on a started gateway.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, TOKEN_IDS, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { PHRASE, speak, type SpokenAudio } from '../audio/speech-fixtures.js';
import { getMedia } from './media-fixture.js';

const OTHER_SECRET = 'other-rpc-secret-0123456789abcdefghijkl';
const START = Date.parse('2026-03-01T12:00:00.000Z');
const TTL_MS = 60_000;

describe('media files belong to the token that saved them', () => {
  let gateway: Harness;
  let speech: SpokenAudio;
  let clock = START;

  beforeAll(async () => {
    speech = await speak(PHRASE);
    gateway = await startGateway({
      audio: { engines: [{ kind: 'pocketsphinx' }] },
      media: { sweepIntervalMs: 0, defaultTtlMs: TTL_MS },
      extraTokens: [{ id: 'other-client', secret: OTHER_SECRET, scopes: ['rpc'] }],
      app: { now: () => clock },
    });
  }, 30_000);
  afterAll(async () => {
    await gateway?.close();
  });

  async function statusAndBody(path: string, token: string) {
    const response = await getMedia(gateway.url, path, token);
    const isJson = response.headers.get('content-type')?.startsWith('application/json') === true;
    return { status: response.status, body: isJson ? ((await response.json()) as unknown) : undefined };
  }
  async function saveByTranscription(): Promise<string> {
    const response = await callRpc(gateway.url, gateway.tokens.rpc, 'audio.transcribe', {
      audio: speech.wav.toString('base64'),
      mimeType: 'audio/wav',
      save: true,
    });
    const mediaId = (response.result as { mediaId?: string } | undefined)?.mediaId;
    if (mediaId === undefined) throw new Error(JSON.stringify(response));
    return mediaId;
  }

  it('serves the saver and an admin, and answers another rpc token 404 exactly as for an unknown id', async () => {
    const id = await saveByTranscription();
    for (const suffix of ['', '/meta']) {
      expect((await statusAndBody(`/media/${id}${suffix}`, gateway.tokens.rpc)).status, suffix).toBe(200);
      expect((await statusAndBody(`/media/${id}${suffix}`, gateway.tokens.admin)).status, suffix).toBe(200);
      const other = await statusAndBody(`/media/${id}${suffix}`, OTHER_SECRET);
      const unknown = await statusAndBody(`/media/${id.replace(/^[0-9a-f]{8}/, '00000000')}${suffix}`, OTHER_SECRET);
      expect(other.status, suffix).toBe(404);
      expect(other.body, suffix).toEqual({ error: { code: 'not_found', message: `Media not found: ${id}` } });
      expect(unknown.status, suffix).toBe(404);
    }
  }, 60_000);

  it("answers another token 404, not 410, for the owner's expired file", async () => {
    const id = await saveByTranscription();
    clock = START + TTL_MS;
    try {
      expect((await statusAndBody(`/media/${id}`, gateway.tokens.rpc)).status).toBe(410);
      expect((await statusAndBody(`/media/${id}`, OTHER_SECRET)).status).toBe(404);
      expect((await statusAndBody(`/media/${id}/meta`, OTHER_SECRET)).status).toBe(404);
    } finally {
      clock = START;
    }
  }, 60_000);

  it('records the saving token as the owner', async () => {
    const id = await saveByTranscription();
    const db = new Database(gateway.paths.databasePath, { readonly: true });
    try {
      expect(db.prepare('SELECT owner_id FROM media WHERE id = ?').pluck().get(id)).toBe(TOKEN_IDS.rpc);
    } finally {
      db.close();
    }
  }, 60_000);

  it('keeps a file saved before owners were recorded to admin tokens', async () => {
    const id = await saveByTranscription();
    const db = new Database(gateway.paths.databasePath);
    try {
      db.prepare('UPDATE media SET owner_id = NULL WHERE id = ?').run(id);
    } finally {
      db.close();
    }
    expect((await statusAndBody(`/media/${id}`, gateway.tokens.admin)).status).toBe(200);
    expect((await statusAndBody(`/media/${id}`, gateway.tokens.rpc)).status).toBe(404);
    expect((await statusAndBody(`/media/${id}/meta`, OTHER_SECRET)).status).toBe(404);
  }, 60_000);
});
