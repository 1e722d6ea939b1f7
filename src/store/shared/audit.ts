// The AuditPort on both dialects: each appended batch written whole or not at all, read back newest first.
import { AUDIT_FACET_MAX_VALUES, type AuditPort } from '../ports/audit.js';
import type { StoreDb } from './store-db.js';

/** Rows per INSERT: twelve parameters each stays under SQLite's 32,766 and PostgreSQL's 65,535 bound values. */
const ROWS_PER_INSERT = 1_000;

export function createAuditPort(store: StoreDb): AuditPort {
  const { db } = store;
  return {
    async append(rows) {
      const inserts = [];
      for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
        const values = rows.slice(start, start + ROWS_PER_INSERT).map((row) => ({
          id: row.id,
          tenant_id: row.tenantId,
          agent_id: row.agentId,
          ts: row.ts,
          kind: row.kind,
          classification: row.classification,
          action: row.action,
          actor: row.actor,
          outcome: row.outcome,
          severity: row.severity,
          trace_id: row.traceId,
          refs: row.refs,
        }));
        inserts.push(db.insertInto('audit_log').values(values));
      }
      if (inserts.length > 0) await store.atomic(inserts);
    },
    async query(filter, signal) {
      signal?.throwIfAborted();
      let query = db
        .selectFrom('audit_log')
        .select([
          'id',
          'tenant_id as tenantId',
          'agent_id as agentId',
          'ts',
          'kind',
          'classification',
          'action',
          'actor',
          'outcome',
          'severity',
          'trace_id as traceId',
          'refs',
        ]);
      const equal = [
        ['kind', filter.kind],
        ['classification', filter.classification],
        ['agent_id', filter.agentId],
        ['tenant_id', filter.tenant],
        ['outcome', filter.outcome],
      ] as const;
      for (const [column, value] of equal) if (value !== undefined) query = query.where(column, '=', value);
      if (filter.since !== undefined) query = query.where('ts', '>=', filter.since);
      if (filter.until !== undefined) query = query.where('ts', '<=', filter.until);
      const { before } = filter;
      if (before !== undefined) {
        query = query.where((eb) =>
          eb.or([eb('ts', '<', before.ts), eb.and([eb('ts', '=', before.ts), eb('id', '<', before.id)])]),
        );
      }
      return store.rows(query.orderBy('ts', 'desc').orderBy('id', 'desc').limit(filter.limit));
    },
    async facets(signal) {
      signal?.throwIfAborted();
      const distinct = async (column: 'kind' | 'agent_id' | 'outcome' | 'classification' | 'actor') =>
        (
          await store.rows(
            db
              .selectFrom('audit_log')
              .select(`${column} as value`)
              .distinct()
              .where(column, 'is not', null)
              .orderBy(column)
              .limit(AUDIT_FACET_MAX_VALUES),
          )
        ).flatMap((found) => (found.value === null ? [] : [found.value]));
      return {
        kinds: await distinct('kind'),
        agentIds: await distinct('agent_id'),
        outcomes: await distinct('outcome'),
        classifications: await distinct('classification'),
        actors: await distinct('actor'),
      };
    },
  };
}
