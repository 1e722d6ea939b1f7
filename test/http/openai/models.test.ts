// GET /v1/models and GET /v1/models/<id> (models and agents) through the openai SDK and raw HTTP.
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
    fx = await startRouteFixture({
      llmBaseUrl: llm.baseUrl,
      models: ['small', 'org/large-v2'],
      agents: {
        default: { name: 'Assistant', provider: 'local', model: 'small' },
        // An agent named like a bare model id of the catalog.
        small: { name: 'Small agent', provider: 'local', model: 'small' },
        paused: { name: 'Paused', provider: 'local', model: 'small' },
      },
    });
    const paused = fx.agents.get('paused');
    if (paused !== undefined) paused.status = 'suspended';
    client = new OpenAI({ baseURL: `${fx.url}/v1`, apiKey: fx.tokens.api, maxRetries: 0 });
  });
  afterAll(async () => {
    await fx.close();
    await llm.close();
  });

  it('lists every configured model as <provider>/<modelId>, then every active agent owned by "agent"', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models).toEqual([
      { id: 'local/small', object: 'model', created: 0, owned_by: 'local' },
      { id: 'local/org/large-v2', object: 'model', created: 0, owned_by: 'local' },
      { id: 'default', object: 'model', created: 0, owned_by: 'agent' },
      { id: 'small', object: 'model', created: 0, owned_by: 'agent' },
    ]);
    const raw = await fetch(`${fx.url}/v1/models`, { headers: { authorization: `Bearer ${fx.tokens.api}` } });
    expect(await raw.json()).toEqual({ object: 'list', data: models });
  });

  it('retrieves one model whose id holds slashes', async () => {
    expect(await client.models.retrieve('local/small')).toEqual({
      id: 'local/small',
      object: 'model',
      created: 0,
      owned_by: 'local',
    });
    expect(await client.models.retrieve('local/org/large-v2')).toMatchObject({ id: 'local/org/large-v2' });
    const encoded = await fetch(`${fx.url}/v1/models/local%2Fsmall`, {
      headers: { authorization: `Bearer ${fx.tokens.api}` },
    });
    expect(await encoded.json()).toMatchObject({ id: 'local/small' });
  });

  it('retrieves an agent by its id, the agent winning over a bare model id of the same name as in chat', async () => {
    expect(await client.models.retrieve('default')).toEqual({
      id: 'default',
      object: 'model',
      created: 0,
      owned_by: 'agent',
    });
    expect(await client.models.retrieve('small')).toEqual({
      id: 'small',
      object: 'model',
      created: 0,
      owned_by: 'agent',
    });
    llm.script({ text: 'from the agent' });
    const completion = await client.chat.completions.create({
      model: 'small',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0]?.message.content).toBe('from the agent');
  });

  it('leaves a suspended agent out of the list and answers 409 for it, as chat does', async () => {
    const retrieve = await fetch(`${fx.url}/v1/models/paused`, {
      headers: { authorization: `Bearer ${fx.tokens.api}` },
    });
    const chat = await fetch(`${fx.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.tokens.api}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'paused', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(retrieve.status).toBe(409);
    expect(chat.status).toBe(409);
    expect(await retrieve.json()).toEqual(await chat.json());
  });

  it('answers 404 not_found_error `Model not found` for an unknown id', async () => {
    await expect(client.models.retrieve('local/missing')).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.models.retrieve('missing-agent')).rejects.toBeInstanceOf(NotFoundError);
    const response = await fetch(`${fx.url}/v1/models/other/small`, {
      headers: { authorization: `Bearer ${fx.tokens.api}` },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { message: 'Model not found', type: 'not_found_error', param: 'model', code: null },
    });
  });
});
