// The SQLite AuditPort: one transaction per appended batch, filtered reads through the shared WHERE builder.
import type { AuditPort, AuditRow } from '../ports/audit.js';
import type { SqliteDatabase } from './database.js';
import { buildWhere } from './where.js';

export function createSqliteAuditPort(db: SqliteDatabase): AuditPort {
  const insert = db.prepare(
    `INSERT INTO audit_log (id, tenant_id, agent_id, ts, kind, classification, action, actor, outcome, severity, trace_id, refs)
     VALUES (@id, @tenantId, @agentId, @ts, @kind, @classification, @action, @actor, @outcome, @severity, @traceId, @refs)`,
  );
  const appendAll = db.transaction((rows: readonly AuditRow[]) => {
    for (const row of rows) insert.run(row);
  });
  return {
    async append(rows) {
      if (rows.length > 0) appendAll(rows);
    },
    async query(filter) {
      const where = buildWhere([
        ['kind', '=', filter.kind],
        ['classification', '=', filter.classification],
        ['agent_id', '=', filter.agentId],
        ['tenant_id', '=', filter.tenant],
        ['outcome', '=', filter.outcome],
        ['ts', '>=', filter.since],
        ['ts', '<=', filter.until],
      ]);
      return db
        .prepare<(string | number)[], AuditRow>(
          `SELECT id, tenant_id AS tenantId, agent_id AS agentId, ts, kind, classification, action, actor, outcome, severity, trace_id AS traceId, refs
         FROM audit_log ${where.sql} ORDER BY ts DESC, id DESC LIMIT ?`,
        )
        .all(...where.values, filter.limit);
    },
  };
}
