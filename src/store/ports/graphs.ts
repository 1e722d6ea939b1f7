// The graph storage port: graph definitions by name, graph runs (who started which graph, its state and output),
// and each run's node records, so a run survives a restart and resumes from its completed nodes.
import type { GraphNodeRecord, GraphRunRecord, StoredGraph } from '../../graphs/types.js';

/** Runs one graph.runs page lists at most, whatever limit is asked. */
export const MAX_GRAPH_RUNS_PAGE = 200;

/** What updateRun changes: the fields given; `vars`, the owner and the graph stay as created. */
export type GraphRunPatch = Partial<Pick<GraphRunRecord, 'state' | 'output' | 'error' | 'updatedAt'>>;

export interface GraphRunQuery {
  name?: string;
  ownerId?: string;
  /** At most this many (clamped to 1…MAX_GRAPH_RUNS_PAGE). */
  limit: number;
}

export interface GraphPort {
  /** Inserts the definition of its name, or replaces it whole (the caller carries createdAt over). */
  saveDefinition(graph: StoredGraph): Promise<void>;
  definition(name: string): Promise<StoredGraph | undefined>;
  /** Every definition, by name. */
  definitions(): Promise<StoredGraph[]>;
  /** Whether a definition was there; its runs stay listed. */
  deleteDefinition(name: string): Promise<boolean>;
  createRun(run: GraphRunRecord): Promise<void>;
  run(runId: string): Promise<GraphRunRecord | undefined>;
  /** Whether the run exists; a field absent from the patch keeps its value. */
  updateRun(runId: string, patch: GraphRunPatch): Promise<boolean>;
  /** Newest first (by createdAt, then runId). */
  runs(query: GraphRunQuery): Promise<GraphRunRecord[]>;
  /** Every run still `running`: at startup, those a stopped gateway left become `orphaned`. */
  runningRuns(): Promise<GraphRunRecord[]>;
  /**
   * How many runs are `running`, of the owner and/or graph given: the caps (maxRunsPerToken, maxRunsPerGraph) count
   * every instance's runs on a shared store.
   */
  countRunning(filter: { ownerId?: string; name?: string }): Promise<number>;
  /** Inserts or replaces the record of (runId, nodeId). */
  saveNode(record: GraphNodeRecord): Promise<void>;
  /** A run's node records, by node id. */
  nodes(runId: string): Promise<GraphNodeRecord[]>;
}
