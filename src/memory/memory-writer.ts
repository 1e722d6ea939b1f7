// Stores one memory entry with its vector; an entry whose embedding fails is stored without one and re-embedded later.
import type { Logger } from 'pino';
import type { EmbeddingVector, MemoryEntry, MemoryPort, MemoryType, TrustLevel } from '../store/index.js';
import { WEBHOOK_OWNER_ID } from '../turns/index.js';
import type { MemoryEmbedder } from './memory-embedder.js';
import type { Reembedder } from './reembed.js';

export interface MemoryWrite {
  tenantId: string;
  agentId: string;
  content: string;
  memoryType: MemoryType;
  trustLevel: TrustLevel;
  sourceSessionKey: string | null;
  metadata: Record<string, unknown>;
  derivedFrom?: string[];
}

/** Where a write comes from, for the trust decision. */
export interface MemoryWriteOrigin {
  via: 'tool' | 'operator';
  tenantId: string;
  agentId: string;
  /** The session of the turn that stored it (tool writes); null for operator writes. */
  sessionKey: string | null;
  /** The token id that started the turn or called the method. */
  clientId: string;
}

/**
 * Decides an entry's trust level from its origin and content. The default trusts operators and agents, except in
 * turns a signed webhook started (their text came from outside); the trust module may supply a stricter one.
 */
export type TrustPolicy = (origin: MemoryWriteOrigin, content: string) => TrustLevel;

export const defaultTrustPolicy: TrustPolicy = (origin) => (origin.clientId === WEBHOOK_OWNER_ID ? 'untrusted' : 'trusted');

export interface MemoryWriterDeps {
  port: Pick<MemoryPort, 'insert'>;
  embedder: MemoryEmbedder;
  reembedder: Pick<Reembedder, 'kick'>;
  newId: () => string;
  now: () => number;
  log: Logger;
}

export type MemoryWriter = (write: MemoryWrite, signal: AbortSignal) => Promise<MemoryEntry>;

export function createMemoryWriter({ port, embedder, reembedder, newId, now, log }: MemoryWriterDeps): MemoryWriter {
  return async function storeMemory(write, signal) {
    let vector: EmbeddingVector | undefined;
    try {
      [vector] = await embedder.embed([write.content], signal);
    } catch (error) {
      if (signal.aborted) throw error;
      // The entry is still searchable by its words; its vector comes when the embedder answers again.
      log.warn({ err: error, model: embedder.model }, 'memory entry stored without a vector; it is re-embedded later');
      reembedder.kick();
    }
    const entry = { id: newId(), createdAt: now(), derivedFrom: [], ...write };
    return vector === undefined ? port.insert(entry) : port.insert(entry, vector);
  };
}
