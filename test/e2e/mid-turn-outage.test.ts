// Issue 31: a turn whose storage drops away while it runs ends `unavailable` with a retry hint (503 + Retry-After on
// /v1, errorKind and retryAfterMs in agent.execute's answer), never a 502 "Internal error". The outage is real:
// PostgreSQL terminates the connection of the turn's transcript write while it waits on a lock, then comes back.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import {
  POSTGRES_SKIP_REASON,
  postgresBinDir,
  startPostgresServer,
  type PostgresServer,
} from '../support/postgres-server.js';

/** vi.waitFor waits for an event here (the write blocking on the lock), never measures speed. */
const WAIT = { timeout: 15_000, interval: 20 };

describe.skipIf(postgresBinDir === undefined)(
  `a storage outage in the middle of a turn${postgresBinDir === undefined ? ` (${POSTGRES_SKIP_REASON})` : ''}`,
  () => {
    let postgres: PostgresServer;
    let llm: FakeLlm;
    let gateway: Harness;
    let observer: pg.Client;

    beforeAll(async () => {
      [postgres, llm] = await Promise.all([startPostgresServer(), startFakeLlm()]);
      const { url } = await postgres.freshDatabase({ empty: true });
      gateway = await startGateway({
        providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
        agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model', tools: ['current_time'] } },
        storage: { kind: 'postgres', url },
      });
      observer = new pg.Client({ connectionString: url });
      await observer.connect();
    }, 90_000);
    afterAll(async () => {
      await observer?.end();
      await gateway?.close();
      await llm?.close();
      await postgres?.stop();
    });

    /**
     * Runs `start` with the model's tool call held; once released, the turn's transcript write after the tool step
     * blocks on a table lock and its connection is terminated (SQLSTATE 57P01, as when PostgreSQL restarts). The lock
     * then goes, so the rest of the turn reaches the database again.
     */
    async function withWriteCutMidTurn<T>(start: () => Promise<T>): Promise<T> {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      llm.reset();
      llm.script({ toolCalls: [{ name: 'current_time', arguments: {} }], heldUntil: held });
      const answer = start();
      await vi.waitFor(() => expect(llm.chatRequests()).toHaveLength(1), WAIT);
      await observer.query('BEGIN');
      await observer.query('LOCK TABLE session_messages IN ACCESS EXCLUSIVE MODE');
      release();
      const blocked = await vi.waitFor(async () => {
        const { rows } = await observer.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
        );
        expect(rows).toHaveLength(1);
        return rows[0]?.pid ?? 0;
      }, WAIT);
      await observer.query('SELECT pg_terminate_backend($1)', [blocked]);
      await observer.query('ROLLBACK');
      return answer;
    }

    it('/v1 answers 503 with Retry-After in its envelope, not 502 "Internal error"', async () => {
      const response = await withWriteCutMidTurn(() =>
        fetch(`${gateway.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${gateway.tokens.api}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'default',
            store: true,
            messages: [{ role: 'user', content: 'What time is it?' }],
          }),
        }),
      );
      const body = (await response.json()) as { error: { message: string; type: string; code: null } };
      expect(response.status).toBe(503);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(body.error).toMatchObject({ type: 'server_error', code: null });
      expect(body.error.message).not.toBe('Internal error');
      expect(body.error.message).toContain('cannot be reached');
    });

    it('agent.execute answers finishReason error with errorKind unavailable and retryAfterMs', async () => {
      const answer = await withWriteCutMidTurn(() =>
        callRpc(gateway.url, gateway.tokens.admin, 'agent.execute', {
          message: 'What time is it?',
          sessionKey: { tenantId: 'default', userId: 'alice', channelId: 'test', peerId: 'outage' },
        }),
      );
      expect(answer.result).toMatchObject({
        finishReason: 'error',
        errorKind: 'unavailable',
        retryAfterMs: 5_000,
        error: expect.stringContaining('cannot be reached'),
      });
    });
  },
);
