// The digest of the bearer secret each connection last presented, so a keep-alive client's next request is not hashed again.
import { timingSafeEqual } from 'node:crypto';
import { secretDigest } from './authenticator.js';

export interface ConnectionSecrets {
  /**
   * secretDigest(secret), reused when `connection` presented the same secret last time. The secrets are compared in
   * constant time (a proxy may carry several clients' requests on one connection), whatever their lengths.
   */
  digestOf(connection: object, secret: string): Buffer;
}

function isSameSecret(presented: Buffer, known: Buffer): boolean {
  const isSameLength = presented.length === known.length;
  // A presented secret of another length is compared as the known one against itself: the same work either way.
  const isEqual = timingSafeEqual(isSameLength ? presented : known, known);
  return isSameLength && isEqual;
}

export function createConnectionSecrets(): ConnectionSecrets {
  // Gone with its connection; one secret each, so a connection's memory is bounded by the header size.
  const known = new WeakMap<object, { secret: Buffer; digest: Buffer }>();
  return {
    digestOf(connection, secret) {
      const presented = Buffer.from(secret, 'utf8');
      const last = known.get(connection);
      if (last !== undefined && isSameSecret(presented, last.secret)) return last.digest;
      const digest = secretDigest(secret);
      // Its own memory, not a slice of Buffer's shared pool, which the connection would otherwise keep alive.
      known.set(connection, { secret: Buffer.copyBytesFrom(presented), digest });
      return digest;
    },
  };
}
