// The PostgreSQL AuditPort: one multi-row INSERT per appended batch, filtered reads through the WHERE builder.
import type { AuditPort, AuditRow } from '../ports/audit.js';
import type { Queryable } from './pool.js';
import { buildWhere, Params } from './where.js';

const COLUMNS = 'id, tenant_id, agent_id, ts, kind, classification, action, actor, outcome, severity, trace_id, refs';

export function createPostgresAuditPort(db: Queryable): AuditPort {
  return {
    // One statement per batch: PostgreSQL applies it whole or not at all, with one array parameter per column.
    async append(rows) {
      if (rows.length === 0) return;
      await db.query(
        `INSERT INTO audit_log (${COLUMNS})
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])`,
        [
          rows.map((row) => row.id),
          rows.map((row) => row.tenantId),
          rows.map((row) => row.agentId),
          rows.map((row) => row.ts),
          rows.map((row) => row.kind),
          rows.map((row) => row.classification),
          rows.map((row) => row.action),
          rows.map((row) => row.actor),
          rows.map((row) => row.outcome),
          rows.map((row) => row.severity),
          rows.map((row) => row.traceId),
          rows.map((row) => row.refs),
        ],
      );
    },
    async query(filter, signal) {
      signal?.throwIfAborted();
      const params = new Params();
      const where = buildWhere(params, [
        ['kind', '=', filter.kind],
        ['classification', '=', filter.classification],
        ['agent_id', '=', filter.agentId],
        ['tenant_id', '=', filter.tenant],
        ['outcome', '=', filter.outcome],
        ['ts', '>=', filter.since],
        ['ts', '<=', filter.until],
      ]);
      const limit = params.add(filter.limit);
      const result = await db.query<AuditRow>(
        `SELECT id, tenant_id AS "tenantId", agent_id AS "agentId", ts, kind, classification, action, actor, outcome, severity, trace_id AS "traceId", refs
         FROM audit_log ${where} ORDER BY ts DESC, id DESC LIMIT ${limit}`,
        params.values,
      );
      return result.rows;
    },
  };
}
