// MediaPort conformance: what every backend must do with media records (create, read, expiry order, existence, removal).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MediaPort, MediaRecord } from '../../src/store/index.js';
import type { PortFixture } from './port-fixture.js';

export const mediaRecord = (id: string, overrides: Partial<MediaRecord> = {}): MediaRecord => ({
  id,
  contentType: 'image/png',
  size: 1234,
  savedAt: 1_000,
  expiresAt: 61_000,
  ownerId: 'alice',
  ...overrides,
});

export function mediaPortCases(name: string, open: () => Promise<PortFixture<MediaPort>>): void {
  describe(`MediaPort conformance: ${name}`, () => {
    let handle: PortFixture<MediaPort>;
    beforeEach(async () => {
      handle = await open();
    });
    afterEach(async () => {
      await handle.close();
    });

    it('returns what was created, field for field, and undefined for an unknown id', async () => {
      const kept = mediaRecord('a.png');
      // A record saved before owners were recorded has none (admins only may read it).
      const untyped = mediaRecord('b.bin', { contentType: null, expiresAt: null, size: 0, ownerId: null });
      await handle.port.create(kept);
      await handle.port.create(untyped);
      expect(await handle.port.get('a.png')).toEqual(kept);
      expect(await handle.port.get('b.bin')).toEqual(untyped);
      expect(await handle.port.get('nope.png')).toBeUndefined();
    });

    it('refuses a second record with the same id as a conflict', async () => {
      await handle.port.create(mediaRecord('dup.png'));
      await expect(handle.port.create(mediaRecord('dup.png', { size: 1 }))).rejects.toMatchObject({ kind: 'conflict' });
      expect(await handle.port.get('dup.png')).toMatchObject({ size: 1234 });
    });

    it('lists the expired ids, soonest expiry first, up to the limit, and never those without expiry', async () => {
      await handle.port.create(mediaRecord('late', { expiresAt: 300 }));
      await handle.port.create(mediaRecord('early', { expiresAt: 100 }));
      await handle.port.create(mediaRecord('exact', { expiresAt: 200 }));
      await handle.port.create(mediaRecord('future', { expiresAt: 10_000 }));
      await handle.port.create(mediaRecord('forever', { expiresAt: null }));
      expect(await handle.port.expired(300, 10)).toEqual(['early', 'exact', 'late']);
      expect(await handle.port.expired(200, 10)).toEqual(['early', 'exact']);
      expect(await handle.port.expired(300, 2)).toEqual(['early', 'exact']);
      expect(await handle.port.expired(99, 10)).toEqual([]);
    });

    it('tells which ids have a record, for any number of ids', async () => {
      await handle.port.create(mediaRecord('one'));
      await handle.port.create(mediaRecord('two'));
      const many = Array.from({ length: 1_200 }, (_, index) => `absent-${index}`);
      expect(await handle.port.existing(['one', 'nope', 'two', ...many])).toEqual(new Set(['one', 'two']));
      expect(await handle.port.existing([])).toEqual(new Set());
    });

    it('removes the named records and counts only those that existed', async () => {
      await handle.port.create(mediaRecord('one'));
      await handle.port.create(mediaRecord('two'));
      await handle.port.create(mediaRecord('three'));
      expect(await handle.port.remove(['one', 'three', 'nope'])).toBe(2);
      expect(await handle.port.get('one')).toBeUndefined();
      expect(await handle.port.get('two')).toBeDefined();
      expect(await handle.port.remove([])).toBe(0);
    });

    it('honours an aborted signal when listing expired ids', async () => {
      await expect(handle.port.expired(0, 10, AbortSignal.abort())).rejects.toThrow();
    });
  });
}
