// graph.* methods: define and delete (admin), list, get, run, status, cancel and runs (rpc; a run is its starter's).
import { z } from 'zod';
import { graphNotFound } from '../errors.js';
import { defineMethod, noParams } from '../rpc/index.js';
import { sessionCallerOf } from '../sessions/index.js';
import type { GraphAuthoring, GraphDefinitionStore } from './authoring.js';
import type { GraphRuns } from './graph-runs.js';
import type { DefinitionContext } from './types.js';

/** The most runs graph.runs lists. */
export const MAX_LISTED_RUNS = 200;

const name = z.string().min(1).max(128);
const runId = z.string().min(1).max(256);

export interface GraphMethodsDeps {
  store: GraphDefinitionStore;
  authoring: GraphAuthoring;
  runs: GraphRuns;
  /** What a definition is checked against: every agent and every registered tool. */
  context: () => DefinitionContext;
}

export function graphMethods({ store, authoring, runs, context }: GraphMethodsDeps) {
  return [
    defineMethod({
      name: 'graph.define',
      scope: 'admin',
      summary:
        'Validates and stores a graph definition {name, description?, vars?, nodes, output?} (replacing one of the same name); ' +
        'returns { name, createdAt, updatedAt }. A refused definition is invalid_params naming the path (nodes[2].needs[0]).',
      params: z.strictObject({ definition: z.unknown() }),
      handler: async ({ definition }, ctx) => {
        const graph = await authoring.define({
          definition,
          context: context(),
          tier: 'human',
          createdBy: ctx.caller.clientId,
          mayReplaceOthers: true,
        });
        return { name: graph.name, createdAt: graph.createdAt, updatedAt: graph.updatedAt };
      },
    }),
    defineMethod({
      name: 'graph.list',
      scope: 'rpc',
      summary: 'Stored graphs: { graphs: [{ name, description?, nodes (count), createdBy, createdAt, updatedAt }] }.',
      params: noParams,
      handler: async () => ({
        graphs: (await store.definitions()).map((graph) => ({
          name: graph.name,
          ...(graph.definition.description === undefined ? {} : { description: graph.definition.description }),
          nodes: graph.definition.nodes.length,
          createdBy: graph.createdBy,
          createdAt: graph.createdAt,
          updatedAt: graph.updatedAt,
        })),
      }),
    }),
    defineMethod({
      name: 'graph.get',
      scope: 'rpc',
      summary: 'One stored graph: { name, definition, createdBy, createdAt, updatedAt }; an unknown name is not_found.',
      params: z.strictObject({ name }),
      handler: async ({ name: graphName }) => {
        const graph = await store.definition(graphName);
        if (graph === undefined) throw graphNotFound(graphName);
        return graph;
      },
    }),
    defineMethod({
      name: 'graph.delete',
      scope: 'admin',
      summary: 'Deletes a stored graph (its runs stay): { name, deleted }.',
      params: z.strictObject({ name }),
      handler: async ({ name: graphName }) => ({ name: graphName, deleted: await store.deleteDefinition(graphName) }),
    }),
    defineMethod({
      name: 'graph.run',
      scope: 'rpc',
      summary:
        'Starts a run of a stored graph owned by the caller: { runId } at once; graph:* events follow. `vars` fills the ' +
        "declared vars (defaults for the rest); `resumeFrom` names a failed, cancelled or orphaned run of the caller's whose " +
        'completed nodes are kept (and its vars, unless given).',
      params: z.strictObject({
        name,
        vars: z.record(z.string().max(128), z.unknown()).optional(),
        resumeFrom: runId.optional(),
      }),
      handler: ({ name: graphName, vars, resumeFrom }, ctx) =>
        runs.start({
          name: graphName,
          ...(vars === undefined ? {} : { vars }),
          ...(resumeFrom === undefined ? {} : { resumeFrom }),
          caller: sessionCallerOf(ctx.caller),
        }),
    }),
    defineMethod({
      name: 'graph.status',
      scope: 'rpc',
      summary:
        'A run: { runId, name, ownerId, state: running|completed|failed|cancelled|orphaned, vars, output?, error?, resumedFrom?, ' +
        'createdAt, updatedAt, nodes: [{ id, state: pending|running|completed|failed|skipped|waiting, attempts, startedAt?, endedAt?, output?, error? }] }. ' +
        "Another token's run is forbidden.",
      params: z.strictObject({ runId }),
      handler: ({ runId: id }, ctx) => runs.status(id, sessionCallerOf(ctx.caller)),
    }),
    defineMethod({
      name: 'graph.cancel',
      scope: 'rpc',
      summary:
        'Cancels a running run (its running nodes stop, no further node starts): { runId, state }; a finished run answers its state.',
      params: z.strictObject({ runId }),
      handler: ({ runId: id }, ctx) => runs.cancel(id, sessionCallerOf(ctx.caller)),
    }),
    defineMethod({
      name: 'graph.runs',
      scope: 'rpc',
      summary:
        "The caller's runs (an admin's: everyone's), newest first: { runs: [{ runId, name, ownerId, state, … }] }.",
      params: z.strictObject({ name: name.optional(), limit: z.number().int().min(1).max(MAX_LISTED_RUNS).optional() }),
      handler: async ({ name: graphName, limit }, ctx) => ({
        runs: await runs.list(
          { ...(graphName === undefined ? {} : { name: graphName }), limit: limit ?? 50 },
          sessionCallerOf(ctx.caller),
        ),
      }),
    }),
  ];
}
