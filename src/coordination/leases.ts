// Named leader leases with a TTL: whoever holds one does the work only one instance may do (e.g. firing jobs).

export interface Leases {
  /** Takes the named lease for `ttlMs` unless another instance holds it; resolves to whether this instance holds it now. */
  acquire(name: string, ttlMs: number): Promise<boolean>;
  /** Extends a lease this instance holds by `ttlMs`; resolves false when it was lost (expired and taken over). */
  renew(name: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up at once, so another instance need not wait for the TTL. */
  release(name: string): Promise<void>;
}

/** One process: there is no other instance to hold a lease, so this process always holds every lease. */
export function createLocalLeases(): Leases {
  return {
    acquire: async () => true,
    renew: async () => true,
    release: async () => {},
  };
}
