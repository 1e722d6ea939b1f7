// Reports each error the mask hides as `internal` to the app's sink (system:error): component, error class, trace id.
//
// The sink rides on the app's root logger as a symbol property: pino creates child loggers with Object.create(parent),
// so every logger a component or request is handed finds it without each caller passing a reporter along.

/** What system:error says about a hidden failure: never its message, only where and what class of error. */
export interface InternalErrorReport {
  component: string;
  errorKind: string;
  traceId: string | null;
}

export type InternalErrorSink = (report: InternalErrorReport) => void;

const SINK = Symbol('agent-gateway.internal-error-sink');

/** Attaches `sink` to `log`; loggers derived from it afterwards (and before) report through it. */
export function attachInternalErrorSink<T extends object>(log: T, sink: InternalErrorSink): T {
  Object.defineProperty(log, SINK, { value: sink, enumerable: false, configurable: true });
  return log;
}

function sinkOf(log: object): InternalErrorSink | undefined {
  const sink: unknown = Reflect.get(log, SINK);
  return typeof sink === 'function' ? (sink as InternalErrorSink) : undefined;
}

function componentOf(log: object): string {
  const bindings: unknown = Reflect.get(log, 'bindings');
  if (typeof bindings !== 'function') return 'gateway';
  const bound: unknown = Reflect.apply(bindings, log, []);
  if (typeof bound !== 'object' || bound === null) return 'gateway';
  const component: unknown = Reflect.get(bound, 'component');
  return typeof component === 'string' ? component : 'gateway';
}

/** The error's class name (TypeError, SqliteError …), a label that carries no message text. */
function errorKindOf(error: unknown): string {
  if (error instanceof Error) return error.name.slice(0, 64) || 'Error';
  return typeof error;
}

/** Tells the logger's sink, if any, about a failure hidden behind "Internal error"; a failing sink is ignored. */
export function reportInternal(log: object, cause: unknown, traceId: unknown): void {
  const sink = sinkOf(log);
  if (sink === undefined) return;
  try {
    sink({
      component: componentOf(log),
      errorKind: errorKindOf(cause),
      traceId: typeof traceId === 'string' ? traceId : null,
    });
  } catch {
    // Reporting must never turn one failure into two.
  }
}
