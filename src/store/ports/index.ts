// The storage ports: one async interface per capability, implemented by store/sqlite (and later other backends).
export type { AuditFilter, AuditPort, AuditRow } from './audit.js';
