// GET /media/:id and /media/:id/meta on a started gateway: headers, ranges, ETags, the id rule against traversal, scopes.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaMeta } from '../../src/media/index.js';
import { createSqliteMediaPort, openDatabase } from '../../src/store/sqlite/index.js';
import { startGateway, TOKEN_IDS, TOKENS, type Harness } from '../support/gateway-harness.js';
import { getMedia, rawGet, testBytes } from './media-fixture.js';

const SAVED_AT = Date.parse('2026-03-01T12:00:00.000Z');

describe('media routes', () => {
  let gateway: Harness;
  let mediaDir: string;
  let png: { meta: MediaMeta; data: Buffer };

  beforeAll(async () => {
    gateway = await startGateway({
      gateway: { rateLimit: { maxRequests: 10_000 } },
      media: { sweepIntervalMs: 0, defaultTtlMs: 3_600_000 },
      app: { now: () => SAVED_AT },
    });
    mediaDir = join(gateway.dataDir, 'media');
    const data = testBytes(200_000);
    png = { meta: await gateway.app.media.save({ ownerId: TOKEN_IDS.rpc, data, contentType: 'image/png' }), data };
  });
  afterAll(async () => {
    await gateway.close();
  });

  const get = (path: string, token: string | null = TOKENS.rpc, headers: Record<string, string> = {}) =>
    getMedia(gateway.url, path, token ?? undefined, headers);

  it('serves a saved file whole with its type, length, ETag and nosniff', async () => {
    expect(png.meta).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}\.png$/),
      contentType: 'image/png',
      size: 200_000,
      savedAt: '2026-03-01T12:00:00.000Z',
      expiresAt: '2026-03-01T13:00:00.000Z',
    });
    const response = await get(`/media/${png.meta.id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('content-length')).toBe('200000');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('etag')).toMatch(/^W\/".+"$/);
    expect(Buffer.from(await response.arrayBuffer()).equals(png.data)).toBe(true);
    const head = await fetch(`${gateway.url}/media/${png.meta.id}`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${TOKENS.rpc}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('200000');
    expect(head.headers.get('content-type')).toBe('image/png');
  });

  it('answers the metadata record as JSON', async () => {
    const response = await get(`/media/${png.meta.id}/meta`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.json()).toEqual(png.meta);
  });

  it('keeps the file 0600 in a 0700 directory under the data dir', async () => {
    expect((await stat(mediaDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(mediaDir, png.meta.id))).mode & 0o777).toBe(0o600);
  });

  it('answers a range with 206 and only those bytes: first bytes, a middle slice and a suffix', async () => {
    const first = await get(`/media/${png.meta.id}`, TOKENS.rpc, { range: 'bytes=0-9' });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe('bytes 0-9/200000');
    expect(first.headers.get('content-length')).toBe('10');
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await first.arrayBuffer()).equals(png.data.subarray(0, 10))).toBe(true);

    const middle = await get(`/media/${png.meta.id}`, TOKENS.rpc, { range: 'bytes=100000-100099' });
    expect(middle.status).toBe(206);
    expect(Buffer.from(await middle.arrayBuffer()).equals(png.data.subarray(100_000, 100_100))).toBe(true);

    const suffix = await get(`/media/${png.meta.id}`, TOKENS.rpc, { range: 'bytes=-5' });
    expect(suffix.status).toBe(206);
    expect(suffix.headers.get('content-range')).toBe('bytes 199995-199999/200000');
    expect(Buffer.from(await suffix.arrayBuffer()).equals(png.data.subarray(199_995))).toBe(true);
  });

  it('answers 416 with the size for a range past the end', async () => {
    const response = await get(`/media/${png.meta.id}`, TOKENS.rpc, { range: 'bytes=300000-' });
    expect(response.status).toBe(416);
    expect(response.headers.get('content-range')).toBe('bytes */200000');
    await response.arrayBuffer();
  });

  it('answers an unsatisfiable range in the JSON error envelope, not an HTML page', async () => {
    const response = await get(`/media/${png.meta.id}`, TOKENS.rpc, { range: 'bytes=300000-' });
    expect(response.status).toBe(416);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('content-range')).toBe('bytes */200000');
    expect(await response.json()).toEqual({
      error: { code: 'invalid_request', message: 'Range not satisfiable: the file is 200000 bytes' },
    });
  });

  it('answers 304 without a body to If-None-Match with the current ETag, and the file to a stale one', async () => {
    const etag = (await get(`/media/${png.meta.id}`, TOKENS.rpc, { range: 'bytes=0-0' })).headers.get('etag') ?? '';
    const fresh = await rawGet(gateway.url, `/media/${png.meta.id}`, TOKENS.rpc, { 'if-none-match': etag });
    expect(fresh.status).toBe(304);
    expect(fresh.body).toBe('');
    expect(fresh.headers.etag).toBe(etag);
    const stale = await get(`/media/${png.meta.id}`, TOKENS.rpc, { 'if-none-match': 'W/"0-0"' });
    expect(stale.status).toBe(200);
    expect((await stale.arrayBuffer()).byteLength).toBe(200_000);
  });

  it('answers 404 for an unknown id, and for a file in the media dir that has no record', async () => {
    await writeFile(join(mediaDir, 'stray.txt'), 'not saved through the store', { mode: 0o600 });
    for (const path of ['/media/nope.png', '/media/nope.png/meta', '/media/stray.txt', '/media/stray.txt/meta']) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(await response.json(), path).toMatchObject({ error: { code: 'not_found' } });
    }
  });

  it('takes the type from the record, else from the extension, else octet-stream', async () => {
    // A second connection to the gateway's file stands in for records an older version or an operator wrote.
    const db = openDatabase({ path: gateway.paths.databasePath });
    try {
      const port = createSqliteMediaPort(db);
      const record = { size: 4, savedAt: SAVED_AT, expiresAt: null, ownerId: TOKEN_IDS.rpc };
      await port.create({ id: 'legacy.pdf', contentType: null, ...record });
      await port.create({ id: 'legacy-typed.pdf', contentType: 'text/plain', ...record });
      await port.create({ id: 'legacy-blob', contentType: null, ...record });
    } finally {
      db.close();
    }
    for (const name of ['legacy.pdf', 'legacy-typed.pdf', 'legacy-blob'])
      await writeFile(join(mediaDir, name), '%PDF', { mode: 0o600 });
    expect((await get('/media/legacy.pdf')).headers.get('content-type')).toBe('application/pdf');
    expect((await get('/media/legacy-typed.pdf')).headers.get('content-type')).toBe('text/plain');
    expect((await get('/media/legacy-blob')).headers.get('content-type')).toBe('application/octet-stream');
    expect(await (await get('/media/legacy.pdf/meta')).json()).toMatchObject({
      id: 'legacy.pdf',
      contentType: 'application/pdf',
      expiresAt: null,
    });
  });

  describe('ids that could name another path', () => {
    const encoded = [
      '/media/%2e%2e%2f%2e%2e%2fgateway.db',
      '/media/%2e%2e%2fgateway.db/meta',
      '/media/%252e%252e%252fgateway.db',
      '/media/%252e%252e%255cgateway.db',
      '/media/..%5C..%5Cgateway.db',
      '/media/%5Cetc%5Cpasswd',
      '/media/%2Fetc%2Fpasswd',
      '/media/.hidden',
      '/media/a%00b',
      '/media/name%20with%20space.png',
    ];

    it.each(encoded)('answers 400 to %s', async (path) => {
      const response = await get(path);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'invalid_params' } });
    });

    it('answers 400 to the absolute path of the config file, encoded', async () => {
      for (const suffix of ['', '/meta']) {
        const response = await get(`/media/${encodeURIComponent(gateway.paths.configPath)}${suffix}`);
        expect(response.status, suffix).toBe(400);
        expect(await response.json()).toMatchObject({ error: { code: 'invalid_params' } });
      }
    });

    const raw = [
      '/media/%2e%2e',
      '/media/..\\..\\gateway.db',
      '/media/../gateway.db',
      '/media/../../etc/passwd',
      '/media//etc/passwd',
      '/media/.',
      '/media/',
      '/media/a/b/c',
    ];

    it.each(raw)('answers 400 to the raw path %s and never a file outside media.dir', async (path) => {
      const response = await rawGet(gateway.url, path, TOKENS.rpc);
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'invalid_params' } });
    });

    it('still has the files those paths aimed at, untouched', async () => {
      expect((await readFile(gateway.paths.configPath, 'utf8')).length).toBeGreaterThan(0);
      expect((await stat(gateway.paths.databasePath)).isFile()).toBe(true);
    });
  });

  describe('scopes', () => {
    const cases = [
      ['no token', null, 401],
      ['an unknown token', 'not-a-token-0123456789abcdefghijklmnop', 401],
      ['rpc', TOKENS.rpc, 200],
      ['admin (*)', TOKENS.admin, 200],
      ['admin only', TOKENS.adminOnly, 403],
      ['mcp-client', TOKENS.mcpClient, 403],
      ['api', TOKENS.api, 403],
    ] as const;

    it.each(cases)('answers %s with %i on both routes', async (_name, token, status) => {
      for (const suffix of ['', '/meta']) {
        const response = await get(`/media/${png.meta.id}${suffix}`, token);
        expect(response.status, suffix).toBe(status);
        if (status !== 200)
          expect(await response.json()).toMatchObject({
            error: { code: status === 401 ? 'unauthorized' : 'forbidden' },
          });
        else await response.arrayBuffer();
      }
    });

    it('refuses an mcp-client token before looking at the id', async () => {
      expect((await get('/media/%2e%2e%2fgateway.db', TOKENS.mcpClient)).status).toBe(403);
    });
  });
});

describe('media routes without any token', () => {
  let gateway: Harness;
  beforeAll(async () => {
    gateway = await startGateway({ gateway: { tokens: [] } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('serves files to anyone when the gateway has no token at all (spec: rpc scope only when tokens exist)', async () => {
    const { id } = await gateway.app.media.save({
      ownerId: TOKEN_IDS.rpc,
      data: Buffer.from('hello'),
      contentType: 'text/plain',
    });
    const response = await getMedia(gateway.url, `/media/${id}`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('hello');
    expect((await getMedia(gateway.url, `/media/${id}/meta`)).status).toBe(200);
  });
});
