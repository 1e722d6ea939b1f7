// Delivery and audit over a running gateway: written by the code that knows the facts, not rebuilt from bus events.
import type { AuditEvent } from '../../src/events/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryTrace } from '../../src/obs/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, TOKEN_IDS, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

describe('delivery and audit recorded directly', () => {
  let llm: FakeLlm;
  let harness: Harness;
  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    harness = await startGateway({
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    });
  });
  afterAll(async () => {
    await harness.close();
    await llm.close();
  });

  it('a finished turn leaves one delivery trace on its channel and session', async () => {
    llm.script({ text: 'Hello!' });
    const sessionKey = { tenantId: 'default', userId: 'alice', channelId: 'telegram', peerId: 'p1' };
    expect(
      (await callRpc(harness.url, harness.tokens.admin, 'agent.execute', { message: 'hi', sessionKey })).result,
    ).toMatchObject({ response: 'Hello!' });
    const { deliveries } = (
      await callRpc(harness.url, harness.tokens.admin, 'obs.delivery.recent', { channelId: 'telegram' })
    ).result as { deliveries: DeliveryTrace[] };
    expect(deliveries).toEqual([
      expect.objectContaining({
        channelId: 'telegram',
        channelType: 'telegram',
        sessionKey: 'default:alice:telegram:p1',
        traceId: expect.any(String),
        outcome: 'success',
        errorKind: null,
      }),
    ]);
    expect(deliveries[0]?.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('an audited call is announced on the bus as a typed object with its refs, not a JSON string', async () => {
    const announced: AuditEvent[] = [];
    const unsubscribe = harness.app.events.subscribe((event) => {
      if (event.name === 'audit:event') announced.push(event.payload);
    });
    try {
      // A call that changes something: reads are audited only with audit.reads.
      await callRpc(harness.url, harness.tokens.admin, 'tokens.create', { id: 'announced', scopes: ['rpc'] });
      expect(announced).toContainEqual(
        expect.objectContaining({
          kind: 'rpc.call',
          action: 'tokens.create',
          actor: TOKEN_IDS.admin,
          outcome: 'ok',
          classification: 'admin',
          refs: { transport: 'http' },
        }),
      );
    } finally {
      unsubscribe();
    }
  });
});
