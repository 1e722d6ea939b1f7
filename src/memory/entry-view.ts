// The MemoryEntry shape the methods, routes and tools answer with (catalogue "Common shapes"): times as ISO 8601.
import type { MemoryEntry, MemoryStatus, MemoryType, TrustLevel } from '../store/index.js';

export interface MemoryEntryView {
  id: string;
  content: string;
  /** The fused search score (0 to 1); null where the entry was not found by a search (inspect, browse, export). */
  score: number | null;
  createdAt: string;
  memoryType: MemoryType;
  trustLevel: TrustLevel;
  tenantId: string;
  agentId: string;
  sourceSessionKey: string | null;
  recallCount: number;
  lastRecalledAt: string | null;
  status: MemoryStatus;
  metadata: Record<string, unknown>;
  derivedFrom: string[];
}

const iso = (epochMs: number) => new Date(epochMs).toISOString();

export function entryView(entry: MemoryEntry, score: number | null = null): MemoryEntryView {
  return {
    id: entry.id,
    content: entry.content,
    score,
    createdAt: iso(entry.createdAt),
    memoryType: entry.memoryType,
    trustLevel: entry.trustLevel,
    tenantId: entry.tenantId,
    agentId: entry.agentId,
    sourceSessionKey: entry.sourceSessionKey,
    recallCount: entry.recallCount,
    lastRecalledAt: entry.lastRecalledAt === null ? null : iso(entry.lastRecalledAt),
    status: entry.status,
    metadata: entry.metadata,
    derivedFrom: entry.derivedFrom,
  };
}
