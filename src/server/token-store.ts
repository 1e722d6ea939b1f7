// The seam between authentication and storage for API-created tokens (implemented in store/).
import type { Scope } from '../config/index.js';

export interface StoredToken {
  id: string;
  /** Hex SHA-256 of the secret; the secret itself is never stored. */
  secretHash: string;
  scopes: Scope[];
  createdAt: string;
}

export interface TokenStore {
  create(token: StoredToken): void;
  findBySecretHash(secretHash: string): StoredToken | undefined;
  findById(id: string): StoredToken | undefined;
  list(): StoredToken[];
  revoke(id: string): boolean;
  replaceSecretHash(id: string, secretHash: string): boolean;
}
