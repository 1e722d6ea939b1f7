// The ResponsePort conformance suite: every backend runs these same cases against a fresh port.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResponsePort, ResponseRecord } from '../../src/store/index.js';
import type { PortFixture } from './port-fixture.js';

export const responseRecord: ResponseRecord = {
  responseId: 'resp_1',
  sessionKey: 'default:openai-api:openai:resp_1',
  clientId: 'api-client',
  createdAt: 1_700_000_000_000,
  status: 'completed',
  isBackground: false,
};
export const responseBody = JSON.stringify({ id: 'resp_1', object: 'response', status: 'completed', output: [] });

export function responsePortCases(backend: string, open: () => Promise<PortFixture<ResponsePort>>): void {
  describe(`ResponsePort conformance (${backend})`, () => {
    let fixture: PortFixture<ResponsePort>;
    let store: ResponsePort;
    beforeEach(async () => {
      fixture = await open();
      store = fixture.port;
    });
    afterEach(async () => {
      await fixture.close();
    });

    it('returns the saved record by response id, and undefined for an unknown id', async () => {
      await store.save(responseRecord, responseBody);
      expect(await store.get('resp_1')).toEqual(responseRecord);
      expect(await store.get('resp_unknown')).toBeUndefined();
    });

    it('reads the saved body back as the exact text it was given', async () => {
      const spaced = '{ "id": "resp_1",  "object": "response", "text": "caf\u00e9 \u{1F600}" }';
      await store.save(responseRecord, spaced);
      expect(await store.read('resp_1')).toEqual({ ...responseRecord, body: spaced });
      expect(await store.read('resp_unknown')).toBeUndefined();
    });

    it('refuses a second record with the same response id', async () => {
      await store.save(responseRecord, responseBody);
      await expect(
        store.save({ ...responseRecord, sessionKey: 'default:openai-api:openai:other' }, responseBody),
      ).rejects.toThrow();
    });

    it('deletes one response: true once, false after, and neither get nor read finds it', async () => {
      await store.save(responseRecord, responseBody);
      await store.save({ ...responseRecord, responseId: 'resp_2' }, responseBody);
      expect(await store.delete('resp_1')).toBe(true);
      expect(await store.delete('resp_1')).toBe(false);
      expect(await store.get('resp_1')).toBeUndefined();
      expect(await store.read('resp_1')).toBeUndefined();
      expect(await store.get('resp_2')).toEqual({ ...responseRecord, responseId: 'resp_2' });
    });

    it('keeps the status and whether the response runs in the background', async () => {
      const queued = { ...responseRecord, responseId: 'resp_bg', status: 'queued' as const, isBackground: true };
      await store.save(queued, responseBody);
      expect(await store.get('resp_bg')).toEqual(queued);
      expect(await store.read('resp_bg')).toEqual({ ...queued, body: responseBody });
    });

    it('moves a response to another status and body only from one of the given statuses', async () => {
      await store.save({ ...responseRecord, status: 'queued', isBackground: true }, 'queued body');
      expect(await store.transition('resp_1', ['queued'], 'in_progress', 'running body')).toBe(true);
      expect(await store.read('resp_1')).toMatchObject({
        status: 'in_progress',
        isBackground: true,
        body: 'running body',
      });
      // A cancel that lost the race: the response has moved on, nothing changes.
      expect(await store.transition('resp_1', ['queued'], 'cancelled', 'cancelled body')).toBe(false);
      expect(await store.transition('resp_1', ['queued', 'in_progress'], 'completed', 'final body')).toBe(true);
      expect(await store.transition('resp_1', ['queued', 'in_progress'], 'cancelled', 'cancelled body')).toBe(false);
      expect(await store.read('resp_1')).toMatchObject({ status: 'completed', body: 'final body' });
      expect(await store.transition('resp_unknown', ['queued'], 'failed', 'x')).toBe(false);
      expect(await store.transition('resp_1', [], 'failed', 'x')).toBe(false);
    });

    it('purges responses created before the cutoff, oldest first, at most limit per call', async () => {
      for (const [index, createdAt] of [3_000, 1_000, 2_000, 5_000].entries()) {
        await store.save({ ...responseRecord, responseId: `resp_${index}`, createdAt }, responseBody);
      }
      expect(await store.purgeCreatedBefore(5_000, 2)).toBe(2);
      expect(await store.get('resp_1')).toBeUndefined();
      expect(await store.get('resp_2')).toBeUndefined();
      expect(await store.get('resp_0')).toBeDefined();
      expect(await store.purgeCreatedBefore(5_000, 2)).toBe(1);
      expect(await store.purgeCreatedBefore(5_000, 2)).toBe(0);
      // A response created exactly at the cutoff is not older than it.
      expect(await store.get('resp_3')).toBeDefined();
    });
  });
}
