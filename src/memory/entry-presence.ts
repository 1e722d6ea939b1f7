// Whether a recall scope holds any memory, with the scopes found empty remembered while this process makes every insert.
import type { MemoryPort, MemoryScope } from '../store/index.js';

/** Empty scopes remembered at most (tenants × agents × owners); past it the memory starts again, empty. */
export const EMPTY_SCOPES_KEPT = 10_000;

/** Separates the key's fields, and (alone) stands for a field the scope leaves out: no id holds a control character. */
const SEPARATOR = '\u0000';
const ABSENT = '\u0001';

/**
 * The scope as a key: tenant, agent, then the reader's owner and tenants. Tenant ids refuse control characters, agent and
 * token ids are letters, digits, dot, underscore or hyphen, so no two scopes share one.
 */
function scopeKey({ tenantId, agentId, readableBy }: MemoryScope): string {
  const reader = readableBy === undefined ? ABSENT : [readableBy.ownerId, ...readableBy.tenantIds].join(SEPARATOR);
  return `${tenantId ?? ABSENT}${SEPARATOR}${agentId ?? ABSENT}${SEPARATOR}${reader}`;
}

/**
 * The port with `hasEntries` answered from memory for a scope already found empty: most agents of a chat gateway never
 * store a memory, and their turns then run no query to learn it again. Only an insert adds an entry to a scope, so each
 * insert (when called and when done) forgets every empty scope, and an answer read while an insert ran is not kept.
 * Sound only where every insert into the store goes through this port: one process alone on its SQLite file. Replicas
 * sharing a database insert where the others never see it, so they get the port as it is.
 */
export function withEntryPresence(port: MemoryPort): MemoryPort {
  const empty = new Set<string>();
  let generation = 0;
  const forget = (): void => {
    generation += 1;
    empty.clear();
  };
  return {
    ...port,
    async insert(entry, vector) {
      forget();
      try {
        return await port.insert(entry, vector);
      } finally {
        forget();
      }
    },
    async hasEntries(scope) {
      const key = scopeKey(scope);
      if (empty.has(key)) return false;
      const seen = generation;
      const has = await port.hasEntries(scope);
      if (!has && seen === generation) {
        if (empty.size >= EMPTY_SCOPES_KEPT) empty.clear();
        empty.add(key);
      }
      return has;
    },
  };
}
