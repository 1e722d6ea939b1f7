// The tables of the capabilities added on the shared migrations (learning, graphs, budgets, A2A), as Kysely sees them.
import type { Generated } from 'kysely';

/** A boolean column: INTEGER 0/1 on SQLite, BOOLEAN on PostgreSQL (write it with `flag`, read it with `isSet`). */
export type Flag = number | boolean;

export interface CapabilityTables {
  learning_outcomes: {
    trace_id: string;
    agent_id: string;
    owner_id: string | null;
    session_key: string;
    sender_id: string;
    ts: number;
    outcome: string | null;
    /** JSON arrays as text, like the three other list columns below. */
    sources: string;
    tool_sequence: string;
    topic_key: string;
    trusted: Flag;
    skills_used: string;
    recalled_memory_ids: string;
    source_chars: number;
  };
  learned_procedures: {
    id: string;
    agent_id: string;
    name: string;
    description: string;
    body: string;
    tools: string;
    state: string;
    tool_sequence: string;
    topic_key: string;
    cardinality: number;
    synthesis_abstained: Flag;
    source_trace_ids: string;
    success_uses: number;
    failure_uses: number;
    created_at: number;
    updated_at: number;
    state_since: number;
  };
  procedure_uses: {
    id: Generated<number>;
    procedure_id: string;
    trace_id: string;
    session_key: string;
    outcome: string | null;
    ts: number;
  };
  learning_passes: {
    agent_id: string;
    passed_at: number;
  };
  graphs: {
    name: string;
    /** The validated definition as JSON text. */
    definition: string;
    created_by: string;
    created_at: number;
    updated_at: number;
  };
  graph_runs: {
    run_id: string;
    name: string;
    owner_id: string;
    state: string;
    /** JSON text; `output` null when the run has none (JSON null is the text 'null'). */
    vars: string;
    output: string | null;
    error: string | null;
    resumed_from: string | null;
    created_at: number;
    updated_at: number;
  };
  graph_nodes: {
    run_id: string;
    node_id: string;
    state: string;
    attempts: number;
    started_at: number | null;
    ended_at: number | null;
    output: string | null;
    error: string | null;
  };
  budget_usage: {
    budget_id: string;
    bucket_start: number;
    cost_micro_usd: number;
    tokens: number;
  };
  a2a_tasks: {
    task_id: string;
    owner_id: string;
    agent_id: string;
    context_id: string;
    state: number;
    updated_at: number;
    /** 1 when the task has ended (completed, failed, canceled or rejected), else 0. */
    is_terminal: number;
    body: string;
  };
}
