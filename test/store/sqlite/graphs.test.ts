// The SQLite GraphPort: the shared conformance cases on a fresh file, plus a run and its nodes across a reopen.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGraphPort } from '../../../src/store/shared/index.js';
import { openDatabase, sqliteStoreDb } from '../../../src/store/sqlite/index.js';
import { graphPortCases, graphRun, storedGraph } from '../graphs.cases.js';
import { openTemporaryDatabase } from './temporary-database.js';

graphPortCases('sqlite', async () => {
  const { db, close } = await openTemporaryDatabase();
  return { port: createGraphPort(sqliteStoreDb(db)), close };
});

describe('sqlite graph port', () => {
  let dir = '';
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps definitions, runs and node records across a reopen of the file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-graphs-'));
    const path = join(dir, 'gateway.db');
    const before = openDatabase({ path });
    const graphs = createGraphPort(sqliteStoreDb(before));
    await graphs.saveDefinition(storedGraph('publish'));
    await graphs.createRun(graphRun('r1'));
    await graphs.saveNode({ runId: 'r1', nodeId: 'draft', state: 'completed', attempts: 1, output: 'text' });
    before.close();
    const after = openDatabase({ path });
    const reopened = createGraphPort(sqliteStoreDb(after));
    expect(await reopened.definition('publish')).toEqual(storedGraph('publish'));
    expect((await reopened.runningRuns()).map((run) => run.runId)).toEqual(['r1']);
    expect(await reopened.nodes('r1')).toEqual([
      { runId: 'r1', nodeId: 'draft', state: 'completed', attempts: 1, output: 'text' },
    ]);
    after.close();
  });
});
