// The reflect tests' world: a gateway over the fake LLM server with one agent per scenario (all given current_time;
// mini on a small-tier model, tiny on a nano one, hooks the webhook's agent), and helpers for a clock turn, a reflect pass, the learned
// procedures and the stored health signals.
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { ReflectFunnel } from '../../../src/learning/reflect/index.js';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startGateway, type Harness, type HarnessOptions } from '../../support/gateway-harness.js';
import { callRpc } from '../../support/http-client.js';

export const WEBHOOK_SECRET = 'webhook-secret-0123456789';
export const QUESTION = 'What time is it right now in the office?';

const agent = (model: string) => ({ name: 'Clock', provider: 'fake', model, tools: ['current_time'] });

function gatewayOptions(llm: FakeLlm, extra: Partial<HarnessOptions> = {}): HarnessOptions {
  return {
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        models: [{ id: 'fake-model' }, { id: 'fake-mini', tier: 'small' }, { id: 'fake-nano', tier: 'nano' }],
      },
    },
    agents: {
      ops: agent('fake-model'),
      solo: agent('fake-model'),
      mini: agent('fake-mini'),
      tiny: agent('fake-nano'),
      hooks: agent('fake-model'),
      wordy: agent('fake-model'),
      rogue: agent('fake-model'),
      blank: agent('fake-model'),
      bounded: agent('fake-model'),
      mixed: agent('fake-model'),
    },
    gateway: { webhook: { secret: WEBHOOK_SECRET, agentId: 'hooks' } },
    learning: { reflectIntervalMs: 0 },
    ...extra,
  };
}

/** The reply the synthesis call gets: a procedure in the asked-for JSON, with fields overridden. */
export const procedureReply = (overrides: Record<string, unknown> = {}) => ({
  text: JSON.stringify({
    name: 'tell-the-office-time',
    description: 'Tells the current time in the office by reading the clock.',
    goal: 'Answer what time it is.',
    steps: ['Call current_time.', 'Answer with the time it returned.'],
    tools: ['current_time'],
    ...overrides,
  }),
});

export interface World {
  llm: FakeLlm;
  harness: Harness;
  rpc(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** One turn of `agentId` for sender `userId` in conversation `peerId`: a current_time call, then an answer. */
  clockTurn(agentId: string, userId: string, peerId: string, message?: string): Promise<string>;
  reflect(agentId: string): Promise<ReflectFunnel>;
  signals(kind: string): Promise<Record<string, unknown>[]>;
}

export async function startWorld(extra: Partial<HarnessOptions> = {}): Promise<World> {
  const llm = await startFakeLlm({ models: ['fake-model', 'fake-mini', 'fake-nano'] });
  const harness = await startGateway(gatewayOptions(llm, extra));
  const rpc = async (method: string, params: Record<string, unknown> = {}) => {
    const response = await callRpc(harness.url, harness.tokens.admin, method, params);
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result as Record<string, unknown>;
  };
  return {
    llm,
    harness,
    rpc,
    async clockTurn(agentId, userId, peerId, message = QUESTION) {
      llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { text: 'It is noon.' });
      const sessionKey = { tenantId: 'default', userId, channelId: 'test', peerId };
      expect(await rpc('agent.execute', { agentId, message, sessionKey })).toMatchObject({ finishReason: 'stop' });
      return `default:${userId}:test:${peerId}`;
    },
    async reflect(agentId) {
      const { funnels } = (await rpc('skills.reflect', { agentId })) as { funnels: ReflectFunnel[] };
      expect(funnels).toHaveLength(1);
      const [funnel] = funnels;
      if (funnel === undefined) throw new Error('no funnel');
      return funnel;
    },
    async signals(kind) {
      await harness.app.observability.flush();
      const db = new Database(harness.paths.databasePath, { readonly: true });
      try {
        const rows = db.prepare('SELECT agent_id, data FROM health_signals WHERE kind = ? ORDER BY id').all(kind) as {
          agent_id: string | null;
          data: string;
        }[];
        return rows.map((row) => ({ agentIdColumn: row.agent_id, ...(JSON.parse(row.data) as object) }));
      } finally {
        db.close();
      }
    },
  };
}

export const procedures = async (world: World, agentId: string) =>
  (await world.rpc('skills.learned.list', { agentId })).procedures as Record<string, unknown>[];
