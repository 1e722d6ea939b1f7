// The ResponsePort conformance suite: every backend runs these same cases against a fresh port.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResponsePort } from '../../src/store/index.js';
import type { PortFixture } from './port-fixture.js';

export const responseRecord = { responseId: 'resp_1', sessionKey: 'default:openai-api:openai:resp_1', clientId: 'api-client', createdAt: 1_700_000_000_000 };

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
      await store.save(responseRecord);
      expect(await store.get('resp_1')).toEqual(responseRecord);
      expect(await store.get('resp_unknown')).toBeUndefined();
    });

    it('refuses a second record with the same response id', async () => {
      await store.save(responseRecord);
      await expect(store.save({ ...responseRecord, sessionKey: 'default:openai-api:openai:other' })).rejects.toThrow();
    });
  });
}
