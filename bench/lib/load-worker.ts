// Worker-thread entry of runLoad (opens the connections, runs warm-up and measurement, posts the totals) and of runStreamLoad.
import { parentPort, workerData } from 'node:worker_threads';
import { connectHttpLoad } from './http-load.js';
import type { LoadSpec, LoadWorkerMessage } from './load.js';
import { LoadRun } from './load-run.js';
import { isStreamLoadSpec, runStreamWorker } from './stream-load-worker.js';
import { connectWsLoad } from './ws-load.js';

function post(message: LoadWorkerMessage): void {
  parentPort?.postMessage(message);
}

function isLoadSpec(value: unknown): value is LoadSpec {
  return (
    typeof value === 'object' && value !== null && 'kind' in value && (value.kind === 'http' || value.kind === 'ws')
  );
}

async function main(spec: unknown): Promise<void> {
  if (!isLoadSpec(spec)) throw new TypeError('workerData is not a load spec');
  const connections = spec.kind === 'http' ? await connectHttpLoad(spec) : await connectWsLoad(spec);
  const run = new LoadRun(
    spec,
    () => post({ type: 'measuring' }),
    (totals) => post({ type: 'segment', totals }),
  );
  const finished = run.run();
  connections.start(run);
  const totals = await finished;
  post({ type: 'result', totals, sampleBody: connections.sampleBody() });
  await connections.close();
}

if (isStreamLoadSpec(workerData)) {
  void runStreamWorker(workerData);
} else {
  main(workerData).catch((error: unknown) => {
    post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  });
}
