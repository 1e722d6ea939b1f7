// Defining a graph, by an operator (graph.define) or a model (pipeline_define): validated against what exists, stored,
// and every attempt recorded as a pipeline_authored health signal {tier, valid, errors} (obs.fleet.health's gate).
import { graphDefinitionInvalid, graphNameTaken } from '../errors.js';
import { SIGNAL_KIND, type HealthSignalRecorder } from '../obs/index.js';
import type { GraphPort } from '../store/index.js';
import type { DefinitionContext, DefinitionResult, StoredGraph } from './types.js';

/** Who authored a definition: a person through graph.define, or a model of the catalog's tier. */
export type AuthorTier = 'frontier' | 'small' | 'nano' | 'human';

/** The graph store as authoring and graph.* use it. */
export type GraphDefinitionStore = Pick<
  GraphPort,
  'saveDefinition' | 'definition' | 'definitions' | 'deleteDefinition'
>;

export interface GraphAuthoringDeps {
  store: GraphDefinitionStore;
  validate: (input: unknown, context: DefinitionContext) => DefinitionResult;
  signals?: HealthSignalRecorder;
  now: () => number;
}

export interface DefineInput {
  definition: unknown;
  context: DefinitionContext;
  tier: AuthorTier;
  /** The token the definition is stored for. */
  createdBy: string;
  /** The authoring model's agent, recorded with the signal. */
  agentId?: string;
  /** Whether a graph another token defined may be replaced (graph.define is admin; a model's may not). */
  mayReplaceOthers: boolean;
}

export interface GraphAuthoring {
  /** Stores the definition, or throws invalid_params naming the first issue's path (all issues in details). */
  define(input: DefineInput): Promise<StoredGraph>;
}

export function createGraphAuthoring(deps: GraphAuthoringDeps): GraphAuthoring {
  const { store, signals, now } = deps;

  function record(input: DefineInput, valid: boolean, errors: number): void {
    signals?.record({
      kind: SIGNAL_KIND.pipelineAuthored,
      ...(input.agentId === undefined ? {} : { agentId: input.agentId }),
      severity: valid ? 'info' : 'warning',
      data: { tier: input.tier, valid, errors },
    });
  }

  return {
    async define(input) {
      const result = deps.validate(input.definition, input.context);
      if (!result.ok) {
        record(input, false, result.issues.length);
        throw graphDefinitionInvalid(result.issues);
      }
      record(input, true, 0);
      const { definition } = result;
      const existing = await store.definition(definition.name);
      if (existing !== undefined && !input.mayReplaceOthers && existing.createdBy !== input.createdBy)
        throw graphNameTaken(definition.name);
      const at = now();
      const graph: StoredGraph = {
        name: definition.name,
        definition,
        createdBy: existing?.createdBy ?? input.createdBy,
        createdAt: existing?.createdAt ?? at,
        updatedAt: at,
      };
      await store.saveDefinition(graph);
      return graph;
    },
  };
}
