// How many entries of a scope contain each word: the lexical lane's guide to which query words are worth matching.
import { ownerCondition, passesOwnerCondition, type MemoryFilter, type MemoryReader } from '../index.js';
import type { SqliteDatabase } from './database.js';
import { filterWhere } from './memory-rows.js';

/** Scopes whose counts are kept; the least recently searched is dropped past it and counted again when searched. */
export const TERM_COUNT_SCOPES_KEPT = 64;

/**
 * The words of a text as the lexical lane sees them: letters, digits and underscores, lower case, accents removed
 * (as FTS5's unicode61 tokenizer removes them), so counting and querying agree on what a word is.
 */
export function wordsOf(text: string): Set<string> {
  const words = text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .match(/[\p{L}\p{N}_]+/gu);
  return new Set(words ?? []);
}

export interface ScopeTermCounts {
  /** Entries in the scope. */
  entries: number;
  /** Entries containing each word. */
  byWord: Map<string, number>;
}

export interface TermCounts {
  /** The scope's counts: counted from its entries on first use, then kept in step by triggers on every insert and delete. */
  of(filter: MemoryFilter): ScopeTermCounts;
  /** Entries in the whole store (the scope's share of it decides whether the scope token narrows a query). */
  totalEntries(): number;
}

/** The part of a filter counts are kept for: tenant, agent and owner (type, trust and status filters share their scope's counts: the counts guide, never decide). */
interface CountedScope {
  tenantId: string | undefined;
  agentId: string | undefined;
  owner: MemoryReader | undefined;
}

const scopeOf = (filter: MemoryFilter): CountedScope => ({
  tenantId: filter.tenantId,
  agentId: filter.agentId,
  owner: ownerCondition(filter),
});
const keyOf = ({ tenantId, agentId, owner }: CountedScope) =>
  JSON.stringify([tenantId ?? null, agentId ?? null, owner === undefined ? null : [owner.ownerId, ...owner.tenantIds]]);
const holds = (scope: CountedScope, tenantId: string, agentId: string, ownerId: string | null) =>
  (scope.tenantId === undefined || scope.tenantId === tenantId) &&
  (scope.agentId === undefined || scope.agentId === agentId) &&
  passesOwnerCondition(scope.owner, tenantId, ownerId);

export function createTermCounts(db: SqliteDatabase): TermCounts {
  const scopes = new Map<string, { scope: CountedScope; counts: ScopeTermCounts }>();
  const countAll = db.prepare<[], number>('SELECT COUNT(*) FROM memory_entries').pluck();
  let total: number | undefined;

  /** Counts a stored (+1) or deleted (-1) entry into every kept scope it belongs to. */
  function step(tenantId: string, agentId: string, ownerId: string | null, content: string, by: 1 | -1): void {
    if (total !== undefined) total += by;
    let words: Set<string> | undefined;
    for (const { scope, counts } of scopes.values()) {
      if (!holds(scope, tenantId, agentId, ownerId)) continue;
      words ??= wordsOf(content);
      counts.entries += by;
      for (const word of words) counts.byWord.set(word, (counts.byWord.get(word) ?? 0) + by);
    }
  }
  // Temporary triggers (this connection only) see every insert and delete, whichever path made it: a delete by id, by
  // source session, a flush or the lifecycle's eviction. A rolled-back write leaves the counts a little off, which only
  // shifts which words a search picks, never what the SQL filter lets through.
  db.function(
    'memory_terms_step',
    { deterministic: false, varargs: false },
    (tenantId: unknown, agentId: unknown, ownerId: unknown, content: unknown, by: unknown) => {
      if (typeof tenantId === 'string' && typeof agentId === 'string' && typeof content === 'string') {
        step(tenantId, agentId, typeof ownerId === 'string' ? ownerId : null, content, by === 1 ? 1 : -1);
      }
      return null;
    },
  );
  db.exec(
    `CREATE TEMP TRIGGER IF NOT EXISTS memory_terms_ai AFTER INSERT ON main.memory_entries BEGIN
       SELECT memory_terms_step(new.tenant_id, new.agent_id, new.owner_id, new.content, 1);
     END;
     CREATE TEMP TRIGGER IF NOT EXISTS memory_terms_ad AFTER DELETE ON main.memory_entries BEGIN
       SELECT memory_terms_step(old.tenant_id, old.agent_id, old.owner_id, old.content, -1);
     END;`,
  );

  function count(filter: MemoryFilter): ScopeTermCounts {
    const where = filterWhere({
      ...(filter.tenantId === undefined ? {} : { tenantId: filter.tenantId }),
      ...(filter.agentId === undefined ? {} : { agentId: filter.agentId }),
      ...(filter.readableBy === undefined ? {} : { readableBy: filter.readableBy }),
    });
    const counts: ScopeTermCounts = { entries: 0, byWord: new Map() };
    const contents = db.prepare<unknown[], string>(`SELECT e.content FROM memory_entries e ${where.sql}`).pluck();
    for (const content of contents.iterate(...where.values)) {
      counts.entries += 1;
      for (const word of wordsOf(content)) counts.byWord.set(word, (counts.byWord.get(word) ?? 0) + 1);
    }
    return counts;
  }

  return {
    of(filter) {
      const scope = scopeOf(filter);
      const key = keyOf(scope);
      let kept = scopes.get(key);
      if (kept === undefined) {
        kept = { scope, counts: count(filter) };
        if (scopes.size >= TERM_COUNT_SCOPES_KEPT) {
          const oldest = scopes.keys().next();
          if (oldest.done !== true) scopes.delete(oldest.value);
        }
      } else {
        scopes.delete(key);
      }
      scopes.set(key, kept);
      return kept.counts;
    },
    totalEntries() {
      total ??= countAll.get() ?? 0;
      return total;
    },
  };
}
