// The A2A module's dependencies and the shape of what answers its routes once loaded (src/a2a/serving.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AgentRegistry } from '../agents/index.js';
import type { A2aConfig } from '../config/index.js';
import type { EventBus } from '../events/index.js';
import type { AuditInput } from '../obs/index.js';
import type { RunControl } from '../runs/index.js';
import type { RequestAuth, SseStream } from '../server/index.js';
import type { A2aTaskPort, RunPort } from '../store/index.js';
import type { TurnRunner } from '../turns/index.js';
import type { CardAgent } from './card-agent.js';

export interface A2aModuleDeps {
  config: () => A2aConfig;
  agents: Pick<AgentRegistry, 'get'>;
  turns: TurnRunner;
  runControl: Pick<RunControl, 'startRun' | 'kill'>;
  /** Where tasks are kept, and the runs they ran as (a task whose run ended without it reads failed). */
  store: { a2aTasks: A2aTaskPort; runs: Pick<RunPort, 'get'> };
  events: Pick<EventBus, 'subscribe'>;
  auth: RequestAuth;
  audit: { record(input: AuditInput): void };
  version: string;
  now: () => number;
  newId: () => string;
  log: Logger;
}

export interface A2aServing {
  gatewayCard(request: FastifyRequest, agents: CardAgent[]): unknown;
  agentCard(request: FastifyRequest, agent: CardAgent): unknown;
  /** Answers one JSON-RPC request to `agent`; a stream's SSE response is registered in `openStreams` while it lasts. */
  jsonRpc(
    request: FastifyRequest,
    reply: FastifyReply,
    agent: CardAgent,
    openStreams: Set<Pick<SseStream, 'close'>>,
  ): Promise<unknown>;
  /** Ends the running tasks and writes every task change recorded so far. */
  close(): Promise<void>;
}
