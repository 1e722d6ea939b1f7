// The server's contract types other folders name: who a request comes from and over which transport.
import type { Scope } from '../config/index.js';

/** The identity behind a request or connection, derived from its token. */
export interface Caller {
  /** The token's id; notifications for "this client" go to connections with the same id. */
  clientId: string;
  scopes: readonly Scope[];
}

export type Transport = 'ws' | 'http';
