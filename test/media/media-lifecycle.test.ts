// Media files over time on a started gateway: time-to-live (200 → 410 → swept → 404), the sweep and its orphans,
// the size cap, and the offload evidence obs.explain lists.
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IncidentReport } from '../../src/obs/explain/index.js';
import { startGateway, TOKEN_IDS, TOKENS, type Harness, type HarnessOptions } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { getMedia } from './media-fixture.js';

const START = Date.parse('2026-03-01T12:00:00.000Z');
const MINUTE_MS = 60_000;

describe('media lifecycle', () => {
  let gateway: Harness | undefined;
  let clock = START;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  async function start(media: HarnessOptions['media'] = {}): Promise<Harness> {
    clock = START;
    gateway = await startGateway({
      media: { sweepIntervalMs: 0, defaultTtlMs: MINUTE_MS, ...media },
      app: { now: () => clock },
    });
    return gateway;
  }
  const statusOf = async (harness: Harness, path: string) => {
    const response = await getMedia(harness.url, path, TOKENS.rpc);
    const body =
      response.headers.get('content-type')?.startsWith('application/json') === true
        ? await response.json()
        : await response.arrayBuffer();
    return { status: response.status, body };
  };
  const filesIn = async (harness: Harness) => (await readdir(join(harness.dataDir, 'media'))).sort();

  it('serves a file until its time-to-live passes, answers 410 until the sweep, then 404', async () => {
    const harness = await start();
    const { id, expiresAt } = await harness.app.media.save({
      ownerId: TOKEN_IDS.rpc,
      data: Buffer.from('short-lived'),
      contentType: 'text/plain',
    });
    expect(expiresAt).toBe('2026-03-01T12:01:00.000Z');
    expect((await statusOf(harness, `/media/${id}`)).status).toBe(200);

    clock = START + MINUTE_MS - 1;
    expect((await statusOf(harness, `/media/${id}`)).status).toBe(200);
    expect((await statusOf(harness, `/media/${id}/meta`)).status).toBe(200);

    clock = START + MINUTE_MS;
    for (const path of [`/media/${id}`, `/media/${id}/meta`]) {
      expect(await statusOf(harness, path), path).toEqual({
        status: 410,
        body: { error: { code: 'gone', message: `Media ${id} has expired` } },
      });
    }
    // Not swept yet: the file is still there, and still refused.
    expect(await filesIn(harness)).toEqual([id]);

    expect(await harness.app.media.sweep()).toEqual({ expired: 1, orphans: 0 });
    expect(await filesIn(harness)).toEqual([]);
    for (const path of [`/media/${id}`, `/media/${id}/meta`]) {
      expect(await statusOf(harness, path), path).toMatchObject({
        status: 404,
        body: { error: { code: 'not_found' } },
      });
    }
  });

  it('keeps a file saved with ttlMs null, and honours a per-file ttlMs over the default', async () => {
    const harness = await start();
    const forever = await harness.app.media.save({
      ownerId: TOKEN_IDS.rpc,
      data: Buffer.from('kept'),
      contentType: 'text/plain',
      ttlMs: null,
    });
    const brief = await harness.app.media.save({
      ownerId: TOKEN_IDS.rpc,
      data: Buffer.from('brief'),
      contentType: 'text/plain',
      ttlMs: 1_000,
    });
    expect(forever.expiresAt).toBeNull();
    expect(brief.expiresAt).toBe('2026-03-01T12:00:01.000Z');

    clock = START + 1_000;
    expect((await statusOf(harness, `/media/${brief.id}`)).status).toBe(410);
    expect((await statusOf(harness, `/media/${forever.id}`)).status).toBe(200);

    clock = START + 10 * 365 * 24 * 60 * MINUTE_MS;
    expect(await harness.app.media.sweep()).toEqual({ expired: 1, orphans: 0 });
    expect(await filesIn(harness)).toEqual([forever.id]);
    expect((await statusOf(harness, `/media/${forever.id}`)).status).toBe(200);
  });

  it('keeps files without expiry when media.defaultTtlMs is 0', async () => {
    const harness = await start({ defaultTtlMs: 0 });
    const { id, expiresAt } = await harness.app.media.save({
      ownerId: TOKEN_IDS.rpc,
      data: Buffer.from('kept'),
      contentType: 'text/plain',
    });
    expect(expiresAt).toBeNull();
    clock = START + 365 * 24 * 60 * MINUTE_MS;
    expect(await harness.app.media.sweep()).toEqual({ expired: 0, orphans: 0 });
    expect((await statusOf(harness, `/media/${id}`)).status).toBe(200);
  });

  it('sweeps on its own every media.sweepIntervalMs', async () => {
    const harness = await start({ sweepIntervalMs: 20 });
    const { id } = await harness.app.media.save({
      ownerId: TOKEN_IDS.rpc,
      data: Buffer.from('swept by the timer'),
      contentType: 'text/plain',
    });
    clock = START + MINUTE_MS;
    await vi.waitFor(async () => expect(await filesIn(harness)).toEqual([]), { timeout: 5_000, interval: 20 });
    expect((await statusOf(harness, `/media/${id}`)).status).toBe(404);
  });

  it('deletes files with no record, leftover temp files included, and keeps saved ones', async () => {
    const harness = await start();
    const { id } = await harness.app.media.save({
      ownerId: TOKEN_IDS.rpc,
      data: Buffer.from('saved'),
      contentType: 'application/pdf',
    });
    const dir = join(harness.dataDir, 'media');
    await writeFile(join(dir, 'orphan.bin'), 'no record');
    await writeFile(join(dir, `.tmp-${id}x`), 'a write a crash interrupted');
    expect(await harness.app.media.sweep()).toEqual({ expired: 0, orphans: 2 });
    expect(await filesIn(harness)).toEqual([id]);
  });

  it('refuses a file over media.maxBytes, naming the limit, and writes nothing', async () => {
    const harness = await start({ maxBytes: 1_000 });
    await expect(
      harness.app.media.save({ ownerId: TOKEN_IDS.rpc, data: Buffer.alloc(1_001), contentType: 'image/png' }),
    ).rejects.toMatchObject({
      kind: 'payload_too_large',
      message: 'Media file of 1001 bytes exceeds media.maxBytes (1000 bytes)',
    });
    expect(await filesIn(harness)).toEqual([]);
    const exact = await harness.app.media.save({
      ownerId: TOKEN_IDS.rpc,
      data: Buffer.alloc(1_000),
      contentType: 'image/png',
    });
    expect(exact.size).toBe(1_000);
  });

  it('refuses a content type that is not a media type, so nothing can reach a header', async () => {
    const harness = await start();
    for (const contentType of ['image/png\r\nSet-Cookie: a=b', 'png', 'text/html; charset']) {
      await expect(
        harness.app.media.save({ ownerId: TOKEN_IDS.rpc, data: Buffer.from('x'), contentType }),
        contentType,
      ).rejects.toMatchObject({ kind: 'invalid_params', details: { param: 'contentType' } });
    }
    await expect(
      harness.app.media.save({ ownerId: TOKEN_IDS.rpc, data: Buffer.from('x'), contentType: 'text/plain', ttlMs: 0 }),
    ).rejects.toMatchObject({ kind: 'invalid_params', details: { param: 'ttlMs' } });
    expect(await filesIn(harness)).toEqual([]);
  });

  it('records a save with an origin as offload evidence, listed by obs.explain with its path under the data dir', async () => {
    const harness = await start();
    const sessionKey = 'default:alice:test:shots';
    const data = Buffer.from('%PDF-1.7 test');
    const { id } = await harness.app.media.save({
      ownerId: TOKEN_IDS.rpc,
      data,
      contentType: 'application/pdf',
      origin: { sessionKey, traceId: 'trace-shot', toolName: 'browser_pdf' },
    });
    await harness.app.media.save({ ownerId: TOKEN_IDS.rpc, data: Buffer.from('no origin'), contentType: 'text/plain' });
    const answer = await callRpc(harness.url, TOKENS.admin, 'obs.explain', { sessionKey });
    const report = answer.result as IncidentReport;
    expect(report.offloads).toEqual([
      {
        seq: expect.any(Number),
        toolName: 'browser_pdf',
        diskPathRel: `media/${id}`,
        bytes: data.length,
        digest: expect.stringMatching(/^sha256:[0-9a-f]{16}$/),
        resolved: true,
      },
    ]);
  });
});
