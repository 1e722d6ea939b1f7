// GET /v1/models and GET /v1/models/<provider>/<modelId> through the openai SDK and raw HTTP.
import OpenAI, { NotFoundError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from './route-fixture.js';

describe('/v1/models', () => {
  let llm: FakeLlm;
  let fx: RouteFixture;
  let client: OpenAI;
  beforeAll(async () => {
    llm = await startFakeLlm();
    fx = await startRouteFixture({ llmBaseUrl: llm.baseUrl, models: ['small', 'org/large-v2'] });
    client = new OpenAI({ baseURL: `${fx.url}/v1`, apiKey: fx.tokens.api, maxRetries: 0 });
  });
  afterAll(async () => {
    await fx.close();
    await llm.close();
  });

  it('lists every configured model as <provider>/<modelId>, created 0, owned by its provider', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models).toEqual([
      { id: 'local/small', object: 'model', created: 0, owned_by: 'local' },
      { id: 'local/org/large-v2', object: 'model', created: 0, owned_by: 'local' },
    ]);
    const raw = await fetch(`${fx.url}/v1/models`, { headers: { authorization: `Bearer ${fx.tokens.api}` } });
    expect(await raw.json()).toEqual({ object: 'list', data: models });
  });

  it('retrieves one model whose id holds slashes', async () => {
    expect(await client.models.retrieve('local/small')).toEqual({ id: 'local/small', object: 'model', created: 0, owned_by: 'local' });
    expect(await client.models.retrieve('local/org/large-v2')).toMatchObject({ id: 'local/org/large-v2' });
    const encoded = await fetch(`${fx.url}/v1/models/local%2Fsmall`, { headers: { authorization: `Bearer ${fx.tokens.api}` } });
    expect(await encoded.json()).toMatchObject({ id: 'local/small' });
  });

  it('answers 404 not_found_error `Model not found` for an unknown id', async () => {
    await expect(client.models.retrieve('local/missing')).rejects.toBeInstanceOf(NotFoundError);
    const response = await fetch(`${fx.url}/v1/models/other/small`, { headers: { authorization: `Bearer ${fx.tokens.api}` } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { message: 'Model not found', type: 'not_found_error', param: 'model', code: null } });
  });
});
