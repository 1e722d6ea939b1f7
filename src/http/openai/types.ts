// What the /v1 routes need from the rest of the gateway, and the ResponseStore seam behind previous_response_id.
import type { Logger } from 'pino';
import type { AgentRegistry } from '../../agents/index.js';
import type { Embedder, ModelRouter } from '../../providers/index.js';
import type { RequestAuth } from '../../server/index.js';
import type { RunControl } from '../../runs/index.js';
import type { TurnRunner } from '../../turns/index.js';
import type { ResponsePort, RunPort } from '../../store/index.js';

export interface OpenAiRoutesDeps {
  auth: RequestAuth;
  runner: TurnRunner;
  agents: Pick<AgentRegistry, 'get' | 'defaultAgentId' | 'list'>;
  router: Pick<ModelRouter, 'resolve' | 'catalog' | 'unsupported'>;
  /** The embedder as the config is now; undefined: POST /v1/embeddings answers 404 `No embedding provider configured`. */
  embedder: () => Embedder | undefined;
  responses: ResponsePort;
  /**
   * Background responses are runs of kind `response`: recorded and stopped (run.kill, shutdown) through the run
   * control; the run table tells whether one left unfinished is still running anywhere.
   */
  backgroundRuns: { control: Pick<RunControl, 'startRun'>; store: Pick<RunPort, 'get'> };
  /** `responses.maxBackgroundPerToken`, read per request: background responses one token may have in flight here. */
  maxBackgroundPerToken?: () => number;
  /** `responses.ttlDays`, read per use: older responses answer 404 and are purged. Default 30. */
  responseTtlDays?: () => number;
  /** How often expired responses are purged (default RESPONSE_SWEEP_INTERVAL_MS, one hour). */
  responseSweepIntervalMs?: number;
  /** Whether a chat completion stores its session and transcript (`openai.storeTranscripts`); read per request. */
  storeTranscripts?: () => boolean;
  log: Logger;
  /** Epoch ms; `created` fields are its seconds. */
  now?: () => number;
  /** A UUID for completion, response and message ids. */
  newId?: () => string;
  /** Aborted at shutdown: in-flight turns stop and open streams end. */
  shutdownSignal?: AbortSignal;
  /** Comment ping interval of the /v1 streams (default 15 s). */
  keepAliveMs?: number;
}

/** The deps with their defaults filled in, plus the streams open right now (ended at close). */
export interface OpenAiContext extends OpenAiRoutesDeps {
  now: () => number;
  newId: () => string;
  shutdownSignal: AbortSignal;
  keepAliveMs: number;
  openStreams: Set<{ close(): void }>;
}
