// The runs table's row as both SQL stores read it, its column list, and how a row maps to a RunRecord.
import { RUN_KINDS, RUN_STATUSES, type RunKind, type RunRecord, type RunStatus } from '../ports/index.js';

export interface RunRow {
  run_id: string;
  root_run_id: string;
  kind: string;
  parent_key: string | null;
  session_key: string;
  agent_id: string;
  task: string;
  status: string;
  requested_by: string | null;
  started_at: number;
  completed_at: number | null;
  response: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  error: string | null;
  owner_instance: string | null;
  heartbeat_at: number | null;
}

export const RUN_COLUMNS =
  'run_id, root_run_id, kind, parent_key, session_key, agent_id, task, status, requested_by, started_at, completed_at, response, input_tokens, output_tokens, cost_usd, error, owner_instance, heartbeat_at';

function toStatus(value: string): RunStatus {
  return RUN_STATUSES.find((status) => status === value) ?? 'running';
}

function toKind(value: string): RunKind {
  return RUN_KINDS.find((kind) => kind === value) ?? 'spawn';
}

export function toRunRecord(row: RunRow): RunRecord {
  // The table keeps input and output tokens; the total is their sum.
  const tokensUsed =
    row.input_tokens === null && row.output_tokens === null
      ? null
      : {
          input: row.input_tokens ?? 0,
          output: row.output_tokens ?? 0,
          total: (row.input_tokens ?? 0) + (row.output_tokens ?? 0),
        };
  return {
    runId: row.run_id,
    rootRunId: row.root_run_id,
    kind: toKind(row.kind),
    parentKey: row.parent_key,
    sessionKey: row.session_key,
    agentId: row.agent_id,
    task: row.task,
    status: toStatus(row.status),
    requestedBy: row.requested_by,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    response: row.response,
    tokensUsed,
    costUsd: row.cost_usd,
    error: row.error,
    ownerInstance: row.owner_instance,
    heartbeatAt: row.heartbeat_at,
  };
}
