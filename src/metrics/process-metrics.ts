// Node's process metrics (CPU, memory, event loop lag, GC) on one registry per process: their collectors (a GC
// observer, an event-loop delay monitor) cannot be stopped, so every gateway a process starts shares the one set.
import { collectDefaultMetrics, Registry } from 'prom-client';

let processRegistry: Registry | undefined;

export function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}
