// A revoked token id is never issued again (tokens.create and `agent-gateway token create`): sessions are owned by
// token id, so a re-created id would take over the revoked token's sessions. Checked through a started gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const BOB_KEY = 'default:bob:notes';

describe('token ids are never reused', () => {
  let llm: FakeLlm;
  let gateway: Harness;

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await llm?.close();
  });

  const issue = async (id: string) => {
    const issued = await callRpc(gateway.url, gateway.tokens.admin, 'tokens.create', { id, scopes: ['rpc'] });
    return issued;
  };

  it("refuses to re-create a revoked id, and no new non-admin token reaches the revoked token's session", async () => {
    const bob = (await issue('bob')).result as { secret: string };
    llm.script({ text: 'Noted: the safe code is 4321.' });
    expect(
      await callRpc(gateway.url, bob.secret, 'session.send', { key: BOB_KEY, message: 'the safe code is 4321' }),
    ).toHaveProperty('result');
    expect(await callRpc(gateway.url, gateway.tokens.admin, 'tokens.revoke', { id: 'bob' })).toMatchObject({
      result: { id: 'bob', revoked: true },
    });

    const again = await issue('bob');
    expect(again.error).toMatchObject({
      code: -32603,
      message: expect.stringContaining("Token 'bob'"),
      data: { kind: 'conflict', param: 'id' },
    });
    expect(
      (
        (await callRpc(gateway.url, gateway.tokens.admin, 'tokens.list')).result as { tokens: { id: string }[] }
      ).tokens.map((token) => token.id),
    ).not.toContain('bob');

    // Any other new token is refused the session; the admin still reaches it.
    const carol = (await issue('carol')).result as { secret: string };
    const refused = await callRpc(gateway.url, carol.secret, 'session.send', {
      key: BOB_KEY,
      message: 'what is the safe code?',
    });
    expect(refused.error).toMatchObject({ data: { kind: 'forbidden' } });
    const history = await callRpc(gateway.url, gateway.tokens.admin, 'session.export', { session_key: BOB_KEY });
    expect(JSON.stringify(history.result)).toContain('4321');
  });
});
