// The token storage port: API-created tokens, kept as hashes of their secrets.
import type { Scope } from '../../config/index.js';

export interface StoredToken {
  id: string;
  /** Hex SHA-256 of the secret; the secret itself is never stored. */
  secretHash: string;
  scopes: Scope[];
  createdAt: string;
}

export interface TokenPort {
  /**
   * Rejects with GatewayError `conflict` (param `id`) when the id was ever issued, revoked ones included: sessions,
   * media and jobs are owned by token id, so a new token under an old id would take over what the old one made.
   */
  create(token: StoredToken): Promise<void>;
  findBySecretHash(secretHash: string): Promise<StoredToken | undefined>;
  findById(id: string): Promise<StoredToken | undefined>;
  /** Active tokens, oldest first. */
  list(): Promise<StoredToken[]>;
  /**
   * Retires the token at `revokedAt` (ISO 8601): no lookup finds it any more, and its row stays as a tombstone so its
   * id is never issued again; false when there was no active token with this id.
   */
  revoke(id: string, revokedAt: string): Promise<boolean>;
  replaceSecretHash(id: string, secretHash: string): Promise<boolean>;
}
