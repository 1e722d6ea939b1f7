// Stored responses of a started gateway through the official openai SDK: retrieve and delete, plain and streamed.
import OpenAI, { NotFoundError, PermissionDeniedError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';

describe('e2e: client.responses.retrieve and client.responses.delete', () => {
  let llm: FakeLlm;
  let gateway: Harness;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
    });
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.tokens.api, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });

  it('retrieves a response as it was created, and after delete neither retrieve nor previous_response_id finds it', async () => {
    llm.script({ text: 'Kept for later', usage: { inputTokens: 4, outputTokens: 3 } });
    const created = await client.responses.create({
      model: 'default',
      input: 'Remember me',
      metadata: { ticket: '7' },
    });
    const retrieved = await client.responses.retrieve(created.id);
    expect(retrieved).toEqual(created);
    expect(retrieved.output_text).toBe('Kept for later');

    expect(await client.responses.delete(created.id)).toEqual({ id: created.id, object: 'response', deleted: true });
    await expect(client.responses.retrieve(created.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.responses.delete(created.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      client.responses.create({ model: 'default', input: 'Again', previous_response_id: created.id }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('retrieves a streamed response as its response.completed event carried it', async () => {
    llm.script({ deltas: ['Stre', 'amed'] });
    const stream = client.responses.stream({ model: 'default', input: 'Stream please' });
    let completed: unknown;
    for await (const event of stream) if (event.type === 'response.completed') completed = event.response;
    const final = await stream.finalResponse();
    const retrieved = await client.responses.retrieve(final.id);
    expect(retrieved.output_text).toBe('Streamed');
    expect({ ...retrieved, output_text: undefined }).toEqual({ ...(completed as object), output_text: undefined });
  });

  it("refuses another client's token with PermissionDeniedError", async () => {
    const created = await client.responses.create({ model: 'default', input: 'Mine' });
    const other = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.tokens.rpc, maxRetries: 0 });
    await expect(other.responses.retrieve(created.id)).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(other.responses.delete(created.id)).rejects.toBeInstanceOf(PermissionDeniedError);
    expect((await client.responses.retrieve(created.id)).id).toBe(created.id);
  });
});
