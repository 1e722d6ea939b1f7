// Two gateways on one PostgreSQL (storage: postgres): what one stores the other serves. A response created on A is
// retrieved and continued on B with the whole transcript, and a token created on A authenticates on B.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { POSTGRES_SKIP_REASON, postgresBinDir, usePostgresServer } from '../support/postgres-server.js';

describe.skipIf(postgresBinDir === undefined)(
  `e2e: two gateways sharing PostgreSQL${postgresBinDir === undefined ? ` (${POSTGRES_SKIP_REASON})` : ''}`,
  () => {
    const server = usePostgresServer();
    let llm: FakeLlm;
    let a: Harness;
    let b: Harness;

    beforeAll(async () => {
      llm = await startFakeLlm();
      const { url } = await server().freshDatabase({ empty: true });
      const options = {
        providers: { local: { type: 'openai-compatible' as const, baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
        agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
        storage: { kind: 'postgres' as const, url },
      };
      // Both start on the empty database at once: one of them creates the schema, the other waits for it.
      [a, b] = await Promise.all([startGateway(options), startGateway(options)]);
    }, 60_000);
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await llm?.close();
    });

    it('continues on B a conversation started on A, with the transcript A stored', async () => {
      const onA = new OpenAI({ baseURL: `${a.url}/v1`, apiKey: a.tokens.api, maxRetries: 0 });
      const onB = new OpenAI({ baseURL: `${b.url}/v1`, apiKey: b.tokens.api, maxRetries: 0 });
      llm.script({ text: 'Noted: the gate code is 4711' });
      const first = await onA.responses.create({ model: 'default', input: 'Remember the gate code 4711' });
      expect((await onB.responses.retrieve(first.id)).output_text).toBe('Noted: the gate code is 4711');
      llm.script({ text: 'It is 4711' });
      const second = await onB.responses.create({
        model: 'default',
        input: 'What is the gate code?',
        previous_response_id: first.id,
      });
      expect(second.output_text).toBe('It is 4711');
      const sent = JSON.stringify(llm.chatRequests().at(-1)?.body);
      expect(sent).toContain('Remember the gate code 4711');
      expect(sent).toContain('Noted: the gate code is 4711');
      expect((await onA.responses.retrieve(second.id)).output_text).toBe('It is 4711');
    });

    it('authenticates on B a token created through A', async () => {
      const created = await fetch(`${a.url}/rpc`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a.tokens.admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tokens.create',
          params: { id: 'shared-bot', scopes: ['rpc'] },
        }),
      });
      const { result } = (await created.json()) as { result: { secret: string } };
      const onB = await fetch(`${b.url}/rpc`, {
        method: 'POST',
        headers: { authorization: `Bearer ${result.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'system.ping', params: {} }),
      });
      expect(onB.status).toBe(200);
      expect(await onB.json()).toMatchObject({ jsonrpc: '2.0', id: 2, result: expect.anything() });
      const stranger = await fetch(`${b.url}/rpc`, {
        method: 'POST',
        headers: { authorization: `Bearer ${'x'.repeat(43)}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'system.ping', params: {} }),
      });
      expect(stranger.status).toBe(401);
    });
  },
);
