// The PostgreSQL BudgetUsagePort: the shared conformance cases against a fresh database on a throwaway server.
import { createBudgetUsagePort } from '../../../src/store/shared/index.js';
import { postgresStoreDb, type PgPool } from '../../../src/store/postgres/index.js';
import { budgetUsagePortCases } from '../budgets.cases.js';
import { postgresCases } from './fixture.js';

postgresCases('BudgetUsagePort', budgetUsagePortCases, (pool: PgPool) => createBudgetUsagePort(postgresStoreDb(pool)));
