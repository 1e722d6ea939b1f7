// The CRUD ports written once on Kysely, over one database of either dialect.
import type { StorePorts } from '../index.js';
import { createA2aTaskPort } from './a2a-tasks.js';
import { createApprovalPort } from './approvals.js';
import { createAuditPort } from './audit.js';
import { createBudgetUsagePort } from './budgets.js';
import { createGraphPort } from './graphs.js';
import { createJobPort } from './jobs.js';
import { createLearningPort } from './learning.js';
import { createMediaPort } from './media.js';
import { createResponsePort } from './responses.js';
import { createRunPort } from './runs.js';
import type { StoreDb } from './store-db.js';
import { createTokenPort } from './tokens.js';

export type SharedPorts = Pick<
  StorePorts,
  | 'runs'
  | 'tokens'
  | 'responses'
  | 'audit'
  | 'approvals'
  | 'jobs'
  | 'media'
  | 'learning'
  | 'graphs'
  | 'budgets'
  | 'a2aTasks'
>;

export function createSharedPorts(store: StoreDb): SharedPorts {
  return {
    runs: createRunPort(store),
    tokens: createTokenPort(store),
    responses: createResponsePort(store),
    audit: createAuditPort(store),
    approvals: createApprovalPort(store),
    jobs: createJobPort(store),
    media: createMediaPort(store),
    learning: createLearningPort(store),
    graphs: createGraphPort(store),
    budgets: createBudgetUsagePort(store),
    a2aTasks: createA2aTaskPort(store),
  };
}
