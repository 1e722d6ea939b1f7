// The trace a piece of work runs in, carried across awaits: set where a request comes in, read where a span starts.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TraceParent } from './traceparent.js';

const scope = new AsyncLocalStorage<TraceParent>();

/** Runs `fn` with `parent` as the trace its spans join (and the traceparent its upstream requests send). */
export function runInTrace<T>(parent: TraceParent, fn: () => T): T {
  return scope.run(parent, fn);
}

/** The trace the current work runs in; undefined outside any (tracing off, or work not started by a request). */
export function currentTrace(): TraceParent | undefined {
  return scope.getStore();
}
