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
  create(token: StoredToken): Promise<void>;
  findBySecretHash(secretHash: string): Promise<StoredToken | undefined>;
  findById(id: string): Promise<StoredToken | undefined>;
  /** Active tokens, oldest first. */
  list(): Promise<StoredToken[]>;
  /** Deletes the token so its id can be issued again; false when there was none. */
  revoke(id: string): Promise<boolean>;
  replaceSecretHash(id: string, secretHash: string): Promise<boolean>;
}
