// The A2A task port: each task the gateway's agents ran for an A2A client, its owning token and agent, as the task
// object's JSON, so GetTask and ListTasks answer after a restart and on every replica (src/a2a).

export interface A2aTaskRecord {
  taskId: string;
  ownerId: string;
  agentId: string;
  contextId: string;
  /** The A2A TaskState number of the task's status. */
  state: number;
  /** Epoch ms of the last status change: the list order and the cursor key. */
  updatedAt: number;
  isTerminal: boolean;
  /** The task object as JSON text. */
  body: string;
}

export interface A2aTaskQuery {
  contextId?: string;
  state?: number;
  /** Only tasks whose last status change is later than this (epoch ms). */
  updatedAfter?: number;
  /** Resumes after this task of the order (newest update first, then task id descending). */
  after?: { updatedAt: number; taskId: string };
  limit: number;
}

export interface A2aTaskPort {
  /** Inserts the task or replaces what its id holds. */
  put(record: A2aTaskRecord): Promise<void>;
  /** The task if `ownerId` owns it at `agentId`; another token's or agent's task is not found. */
  get(taskId: string, ownerId: string, agentId: string): Promise<A2aTaskRecord | undefined>;
  /** One page in the query's order and how many tasks match without the cursor. */
  list(ownerId: string, agentId: string, query: A2aTaskQuery): Promise<{ records: A2aTaskRecord[]; total: number }>;
  /** Deletes the finished tasks past the newest `keep` finished ones; resolves to how many went. */
  pruneFinished(keep: number): Promise<number>;
}
