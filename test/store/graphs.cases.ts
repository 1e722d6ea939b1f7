// The GraphPort conformance suite: every backend runs these same cases against a fresh port.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GraphDefinition, GraphNodeRecord, GraphRunRecord, StoredGraph } from '../../src/graphs/types.js';
import { MAX_GRAPH_RUNS_PAGE, type GraphPort } from '../../src/store/index.js';
import type { PortFixture } from './port-fixture.js';

const definition: GraphDefinition = {
  name: 'publish',
  description: 'Draft then approve',
  vars: { topic: { type: 'string', default: 'llamas' }, tags: { type: 'array' } },
  nodes: [
    { id: 'draft', type: 'agent', needs: [], retries: 1, agentId: 'writer', message: 'Write on {{vars.topic}}' },
    {
      id: 'post',
      type: 'tool',
      needs: ['draft'],
      retries: 0,
      timeoutMs: 5_000,
      tool: 'publish',
      args: { body: '{{nodes.draft.output}}', flags: [true, null, 2.5], 'odd key': { nested: 'ünïcödé ✓' } },
    },
    {
      id: 'each',
      type: 'map',
      needs: ['draft'],
      retries: 0,
      over: '{{vars.tags}}',
      concurrency: 2,
      node: { type: 'agent', retries: 0, agentId: 'writer', message: '{{item}}', when: 'item != ""' },
    },
    { id: 'ok', type: 'approval', needs: ['post', 'each'], retries: 0, summary: 'Publish?', when: 'true' },
  ],
  output: '{{nodes.post.output}}',
};

export function storedGraph(name: string, overrides: Partial<StoredGraph> = {}): StoredGraph {
  return {
    name,
    definition: { ...definition, name },
    createdBy: 'admin-token',
    createdAt: 100,
    updatedAt: 100,
    ...overrides,
  };
}

export function graphRun(runId: string, overrides: Partial<GraphRunRecord> = {}): GraphRunRecord {
  return {
    runId,
    name: 'publish',
    ownerId: 'rpc-client',
    state: 'running',
    vars: { topic: 'llamas', tags: ['a', 'b'] },
    createdAt: 1_000,
    updatedAt: 1_000,
    ...overrides,
  };
}

function nodeRecord(runId: string, nodeId: string, overrides: Partial<GraphNodeRecord> = {}): GraphNodeRecord {
  return { runId, nodeId, state: 'pending', attempts: 0, ...overrides };
}

export function graphPortCases(backend: string, open: () => Promise<PortFixture<GraphPort>>): void {
  describe(`GraphPort conformance (${backend})`, () => {
    let fixture: PortFixture<GraphPort>;
    let graphs: GraphPort;
    beforeEach(async () => {
      fixture = await open();
      graphs = fixture.port;
    });
    afterEach(async () => {
      await fixture.close();
    });

    it('saves a definition and reads every field back, lists by name, replaces by name and deletes', async () => {
      await graphs.saveDefinition(storedGraph('publish'));
      await graphs.saveDefinition(storedGraph('alpha', { createdBy: 'other-admin', createdAt: 50, updatedAt: 60 }));
      expect(await graphs.definition('publish')).toEqual(storedGraph('publish'));
      expect(await graphs.definition('missing')).toBeUndefined();
      expect((await graphs.definitions()).map((graph) => graph.name)).toEqual(['alpha', 'publish']);

      const replaced = storedGraph('publish', {
        definition: { name: 'publish', vars: {}, nodes: [definition.nodes[3]!] },
        updatedAt: 200,
      });
      await graphs.saveDefinition(replaced);
      expect(await graphs.definition('publish')).toEqual(replaced);
      expect(await graphs.definitions()).toHaveLength(2);

      expect(await graphs.deleteDefinition('publish')).toBe(true);
      expect(await graphs.deleteDefinition('publish')).toBe(false);
      expect(await graphs.definition('publish')).toBeUndefined();
      expect((await graphs.definitions()).map((graph) => graph.name)).toEqual(['alpha']);
    });

    it('creates a run and patches only the fields given; absent fields read back absent', async () => {
      const run = graphRun('r1');
      await graphs.createRun(run);
      expect(await graphs.run('r1')).toEqual(run);
      expect(await graphs.run('missing')).toBeUndefined();

      expect(
        await graphs.updateRun('r1', { state: 'completed', output: { items: [1, 'two'] }, updatedAt: 1_500 }),
      ).toBe(true);
      expect(await graphs.run('r1')).toEqual({
        ...run,
        state: 'completed',
        output: { items: [1, 'two'] },
        updatedAt: 1_500,
      });
      // JSON null is an output; an error set later keeps the output.
      await graphs.updateRun('r1', { output: null });
      await graphs.updateRun('r1', { state: 'failed', error: 'node post failed: 502' });
      expect(await graphs.run('r1')).toMatchObject({ state: 'failed', output: null, error: 'node post failed: 502' });
      expect(await graphs.updateRun('missing', { state: 'cancelled' })).toBe(false);
      expect(await graphs.updateRun('r1', {})).toBe(true);
      expect(await graphs.updateRun('missing', {})).toBe(false);

      const resumed = graphRun('r2', { resumedFrom: 'r1', vars: {}, createdAt: 2_000, updatedAt: 2_000 });
      await graphs.createRun(resumed);
      expect(await graphs.run('r2')).toEqual(resumed);
    });

    it('lists runs newest first, by graph and by owner, bounded by the limit', async () => {
      await graphs.createRun(graphRun('r1', { createdAt: 10 }));
      await graphs.createRun(graphRun('r2', { createdAt: 20, ownerId: 'bob' }));
      await graphs.createRun(graphRun('r3', { createdAt: 30, name: 'other' }));
      await graphs.createRun(graphRun('r4', { createdAt: 30 }));
      const ids = (runs: GraphRunRecord[]) => runs.map((run) => run.runId);
      expect(ids(await graphs.runs({ limit: 10 }))).toEqual(['r4', 'r3', 'r2', 'r1']);
      expect(ids(await graphs.runs({ limit: 2 }))).toEqual(['r4', 'r3']);
      expect(ids(await graphs.runs({ name: 'publish', limit: 10 }))).toEqual(['r4', 'r2', 'r1']);
      expect(ids(await graphs.runs({ ownerId: 'bob', limit: 10 }))).toEqual(['r2']);
      expect(ids(await graphs.runs({ name: 'publish', ownerId: 'rpc-client', limit: 10 }))).toEqual(['r4', 'r1']);
      expect(ids(await graphs.runs({ name: 'nothing', limit: 10 }))).toEqual([]);
      expect(ids(await graphs.runs({ limit: 0 }))).toEqual(['r4']);
    });

    it(`caps a page at ${MAX_GRAPH_RUNS_PAGE} runs whatever limit is asked`, async () => {
      for (let index = 0; index < MAX_GRAPH_RUNS_PAGE + 1; index++)
        await graphs.createRun(graphRun(`r${String(index).padStart(3, '0')}`, { createdAt: index }));
      expect(await graphs.runs({ limit: 10_000 })).toHaveLength(MAX_GRAPH_RUNS_PAGE);
    });

    it('finds the runs still running, oldest first', async () => {
      await graphs.createRun(graphRun('r1', { createdAt: 10 }));
      await graphs.createRun(graphRun('r2', { createdAt: 20, state: 'completed' }));
      await graphs.createRun(graphRun('r3', { createdAt: 5 }));
      await graphs.updateRun('r1', { state: 'orphaned' });
      expect((await graphs.runningRuns()).map((run) => run.runId)).toEqual(['r3']);
    });

    it('counts the runs still running, over all, by owner, by graph and by both', async () => {
      await graphs.createRun(graphRun('r1'));
      await graphs.createRun(graphRun('r2', { ownerId: 'other' }));
      await graphs.createRun(graphRun('r3', { name: 'review' }));
      await graphs.createRun(graphRun('r4', { state: 'completed' }));
      await graphs.createRun(graphRun('r5', { ownerId: 'other', name: 'review' }));
      await graphs.updateRun('r5', { state: 'failed' });
      expect(await graphs.countRunning({})).toBe(3);
      expect(await graphs.countRunning({ ownerId: 'rpc-client' })).toBe(2);
      expect(await graphs.countRunning({ name: 'publish' })).toBe(2);
      expect(await graphs.countRunning({ ownerId: 'other', name: 'publish' })).toBe(1);
      expect(await graphs.countRunning({ ownerId: 'nobody' })).toBe(0);
    });

    it("upserts a run's node records by node id and keeps each run's apart", async () => {
      await graphs.createRun(graphRun('r1'));
      await graphs.saveNode(nodeRecord('r1', 'post'));
      await graphs.saveNode(nodeRecord('r1', 'draft', { state: 'running', attempts: 1, startedAt: 1_010 }));
      await graphs.saveNode(nodeRecord('r2', 'draft', { state: 'skipped' }));
      expect(await graphs.nodes('r1')).toEqual([
        nodeRecord('r1', 'draft', { state: 'running', attempts: 1, startedAt: 1_010 }),
        nodeRecord('r1', 'post'),
      ]);

      const done = nodeRecord('r1', 'draft', {
        state: 'completed',
        attempts: 2,
        startedAt: 1_010,
        endedAt: 1_090,
        output: ['first', { name: 'second', score: 2 }],
      });
      await graphs.saveNode(done);
      const failed = nodeRecord('r1', 'post', { state: 'failed', attempts: 1, error: 'timed out', output: null });
      await graphs.saveNode(failed);
      expect(await graphs.nodes('r1')).toEqual([done, failed]);
      // Saving again clears what the new record leaves out.
      await graphs.saveNode(nodeRecord('r1', 'post', { state: 'waiting', attempts: 1 }));
      expect((await graphs.nodes('r1'))[1]).toEqual(nodeRecord('r1', 'post', { state: 'waiting', attempts: 1 }));
      expect(await graphs.nodes('r2')).toEqual([nodeRecord('r2', 'draft', { state: 'skipped' })]);
      expect(await graphs.nodes('missing')).toEqual([]);
    });
  });
}
