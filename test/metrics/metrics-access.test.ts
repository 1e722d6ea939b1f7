// Who may scrape GET /metrics: anyone on a loopback bind; bound beyond it an admin token, a metrics-scoped token (made
// by config or tokens.create) or `*`, and nothing else. metrics.enabled false answers 404, and label values past
// metrics.maxLabelValues are counted as _other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackHost, metricsNeedToken } from '../../src/metrics/index.js';
import { callRpc } from '../support/http-client.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { labelValues, parsePrometheus, valueOf } from '../support/prometheus-text.js';

const SCRAPER = 'scraper-secret-0123456789abcdefghijklmn';

const scrape = (url: string, token?: string) =>
  fetch(`${url}/metrics`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });

describe('the bind decides whether /metrics needs a token', () => {
  it('treats localhost, 127.0.0.0/8 and ::1 as loopback, and every other address as beyond it', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(metricsNeedToken(host), host).toBe(false);
    for (const host of ['0.0.0.0', '::', '192.168.1.20', '10.0.0.1', 'gateway.example.com', '::ffff:10.0.0.1'])
      expect(metricsNeedToken(host), host).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
  });
});

describe('GET /metrics on a gateway bound to every interface', () => {
  let gateway: Harness;

  beforeAll(async () => {
    gateway = await startGateway({
      gateway: { host: '0.0.0.0' },
      extraTokens: [{ id: 'scraper', secret: SCRAPER, scopes: ['metrics'] }],
    });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('answers 401 without a token and 403 to rpc, api, ws and mcp-client tokens', async () => {
    const url = gateway.url.replace('0.0.0.0', '127.0.0.1');
    expect((await scrape(url)).status).toBe(401);
    for (const token of [gateway.tokens.rpc, gateway.tokens.api, gateway.tokens.ws, gateway.tokens.mcpClient]) {
      const refused = await scrape(url, token);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: { code: 'forbidden' } });
    }
  });

  it('serves admin, admin-only and metrics-scoped tokens, and the metrics token reaches nothing else', async () => {
    const url = gateway.url.replace('0.0.0.0', '127.0.0.1');
    for (const token of [gateway.tokens.admin, gateway.tokens.adminOnly, SCRAPER]) {
      const served = await scrape(url, token);
      expect(served.status).toBe(200);
      expect(await served.text()).toContain('# TYPE gateway_http_requests_total counter');
    }
    expect((await fetch(`${url}/api/agents`, { headers: { authorization: `Bearer ${SCRAPER}` } })).status).toBe(403);
    expect(await callRpc(url, SCRAPER, 'agents.list', {})).toMatchObject({ error: { code: -32603 } });
  });

  it('serves a metrics token made by tokens.create', async () => {
    const url = gateway.url.replace('0.0.0.0', '127.0.0.1');
    const created = await callRpc(url, gateway.tokens.admin, 'tokens.create', {
      id: 'prometheus',
      scopes: ['metrics'],
    });
    const { secret } = created.result as { secret: string };
    expect((await scrape(url, secret)).status).toBe(200);
  });
});

describe('GET /metrics with metrics.enabled false', () => {
  let gateway: Harness;

  beforeAll(async () => {
    gateway = await startGateway({ metrics: { enabled: false } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('answers 404 as an unknown route, with or without a token', async () => {
    for (const token of [undefined, gateway.tokens.admin]) {
      const response = await scrape(gateway.url, token);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
    }
  });
});

describe('label values past metrics.maxLabelValues', () => {
  let llm: FakeLlm;
  let gateway: Harness;
  const agents = ['a1', 'a2', 'a3', 'a4', 'a5'];

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: Object.fromEntries(agents.map((id) => [id, { name: id, provider: 'local', model: 'small' }])),
      metrics: { maxLabelValues: 3, eventIntervalMs: 0 },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await llm?.close();
  });

  it('counts the agents first seen past the cap under _other, and keeps every label within the cap', async () => {
    for (const agent of agents) {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.tokens.rpc}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: agent, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(response.status).toBe(200);
    }
    const families = parsePrometheus(await (await scrape(gateway.url)).text());
    expect(valueOf(families, 'gateway_turns_total')).toBe(5);
    expect(valueOf(families, 'gateway_turns_total', { agent: 'a1' })).toBe(1);
    expect(valueOf(families, 'gateway_turns_total', { agent: 'a3' })).toBe(1);
    expect(valueOf(families, 'gateway_turns_total', { agent: '_other' })).toBe(2);
    expect(valueOf(families, 'gateway_turns_total', { agent: 'a5' })).toBe(0);
    // The cap's three values, and _other.
    for (const [label, values] of labelValues(families)) expect(values.size, label).toBeLessThanOrEqual(4);
  });
});
