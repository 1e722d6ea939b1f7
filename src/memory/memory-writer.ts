// Stores one memory entry with its vector; an entry whose embedding fails is stored without one and re-embedded later.
import type { Logger } from 'pino';
import type { EmbeddingVector, MemoryEntry, MemoryPort, MemoryType, TrustLevel } from '../store/index.js';
import { GatewayError } from '../errors.js';
import type { EmbedPayer, MemoryEmbedder } from './memory-embedder.js';
import type { Reembedder } from './reembed.js';

export interface MemoryWrite {
  tenantId: string;
  agentId: string;
  content: string;
  memoryType: MemoryType;
  /** Decided by the trust policy (trust.ts) from where the content came from. */
  trustLevel: TrustLevel;
  sourceSessionKey: string | null;
  /** The token owning the source session (ToolContext.ownerId); null for an operator's entry (admin methods). */
  ownerId: string | null;
  metadata: Record<string, unknown>;
  derivedFrom?: string[];
}

export interface MemoryWriterDeps {
  port: Pick<MemoryPort, 'insert'>;
  embedder: MemoryEmbedder;
  reembedder: Pick<Reembedder, 'kick'>;
  newId: () => string;
  now: () => number;
  log: Logger;
}

/** `payer`: whose budgets the entry's embedding counts against (the turn's or the caller's); absent: the gateway's. */
export type MemoryWriter = (write: MemoryWrite, signal: AbortSignal, payer?: EmbedPayer) => Promise<MemoryEntry>;

export function createMemoryWriter({ port, embedder, reembedder, newId, now, log }: MemoryWriterDeps): MemoryWriter {
  return async function storeMemory(write, signal, payer) {
    let vector: EmbeddingVector | undefined;
    try {
      [vector] = await embedder.embed([write.content], signal, payer);
    } catch (error) {
      // A budget at its limit refuses the write: stored without a vector, the background re-embedding would embed it
      // at the gateway's expense, past the payer's budget.
      if (signal.aborted || (error instanceof GatewayError && error.kind === 'budget_exceeded')) throw error;
      // The entry is still searchable by its words; its vector comes when the embedder answers again.
      log.warn({ err: error, model: embedder.model }, 'memory entry stored without a vector; it is re-embedded later');
      reembedder.kick();
    }
    const entry = { id: newId(), createdAt: now(), derivedFrom: [], ...write };
    return vector === undefined ? port.insert(entry) : port.insert(entry, vector);
  };
}
