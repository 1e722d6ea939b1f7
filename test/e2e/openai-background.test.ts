// Background responses through the official openai SDK: responses.create({background: true}) answers queued, a
// responses.retrieve poll loop sees in_progress then completed, responses.cancel cancels, and a restart leaves none running.
import Database from 'better-sqlite3';
import OpenAI, { BadRequestError, PermissionDeniedError, RateLimitError } from 'openai';
import type { Response } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/obs/logger.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness, type HarnessOptions } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const POLL = { timeout: 5_000, interval: 25 };

/** A promise the test settles by hand: the fake LLM holds its answer until then. */
function hold(): { promise: Promise<void>; release: () => void } {
  let release = (): void => {};
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe('e2e: background responses', () => {
  let llm: FakeLlm;
  let gateway: Harness;
  let client: OpenAI;
  const options = (): HarnessOptions => ({
    providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
    agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
  });
  const sdk = (url: string, token: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: token, maxRetries: 0 });

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway(options());
    client = sdk(gateway.url, gateway.tokens.api);
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });

  it('answers queued at once, then the SDK poll loop sees in_progress and finally completed, recorded as a response run', async () => {
    const held = hold();
    llm.script({ text: 'Otters in space.', heldUntil: held.promise });
    const created = await client.responses.create({ model: 'default', input: 'Write a long story', background: true });
    expect(created).toMatchObject({ object: 'response', status: 'queued', background: true, output: [], usage: null });
    await vi.waitFor(
      async () => expect((await client.responses.retrieve(created.id)).status).toBe('in_progress'),
      POLL,
    );
    expect((await callRpc(gateway.url, gateway.tokens.admin, 'run.get', { runId: created.id })).result).toMatchObject({
      kind: 'response',
      status: 'running',
    });
    held.release();

    // The loop of OpenAI's background guide.
    let response: Response = created;
    while (response.status === 'queued' || response.status === 'in_progress') {
      await new Promise((resolve) => setTimeout(resolve, 20));
      response = await client.responses.retrieve(created.id);
    }
    expect(response).toMatchObject({ id: created.id, status: 'completed', background: true, error: null });
    expect(response.output_text).toBe('Otters in space.');
    await vi.waitFor(
      async () =>
        expect(
          (await callRpc(gateway.url, gateway.tokens.admin, 'run.get', { runId: created.id })).result,
        ).toMatchObject({ status: 'completed' }),
      POLL,
    );
    // An ended background response is continued like any other.
    llm.script({ text: 'Chapter two.' });
    const next = await client.responses.create({ model: 'default', input: 'Go on', previous_response_id: created.id });
    expect(next.output_text).toBe('Chapter two.');
  });

  it('cancels a running one: the turn stops, retrieve and a second cancel answer cancelled, a finished one cannot be cancelled', async () => {
    llm.script({ text: 'Never seen.', heldUntil: new Promise<void>(() => undefined) });
    const created = await client.responses.create({ model: 'default', input: 'Take your time', background: true });
    await vi.waitFor(
      async () => expect((await client.responses.retrieve(created.id)).status).toBe('in_progress'),
      POLL,
    );
    const before = llm.chatRequests().length;
    await vi.waitFor(() => expect(llm.chatRequests().at(-1)?.closedByClient).toBe(false), POLL);

    const cancelled = await client.responses.cancel(created.id);
    expect(cancelled).toMatchObject({ id: created.id, status: 'cancelled', background: true });
    expect(await client.responses.retrieve(created.id)).toMatchObject({ status: 'cancelled' });
    expect(await client.responses.cancel(created.id)).toMatchObject({ status: 'cancelled' });
    // The model call was abandoned, and the run ended.
    await vi.waitFor(() => expect(llm.chatRequests()[before - 1]?.closedByClient).toBe(true), POLL);
    await vi.waitFor(
      async () =>
        expect(
          (await callRpc(gateway.url, gateway.tokens.admin, 'run.get', { runId: created.id })).result,
        ).toMatchObject({ status: 'failed', error: 'The response was cancelled' }),
      POLL,
    );
    expect((await client.responses.retrieve(created.id)).status).toBe('cancelled');

    // Deleting a running one stops its turn too.
    llm.script({ text: 'Never seen either.', heldUntil: new Promise<void>(() => undefined) });
    const deleted = await client.responses.create({ model: 'default', input: 'Then forget it', background: true });
    await vi.waitFor(
      async () => expect((await client.responses.retrieve(deleted.id)).status).toBe('in_progress'),
      POLL,
    );
    const deletedCall = llm.chatRequests().length - 1;
    await client.responses.delete(deleted.id);
    await vi.waitFor(() => expect(llm.chatRequests()[deletedCall]?.closedByClient).toBe(true), POLL);
    await vi.waitFor(
      async () =>
        expect(
          (await callRpc(gateway.url, gateway.tokens.admin, 'run.get', { runId: deleted.id })).result,
        ).toMatchObject({ status: 'failed' }),
      POLL,
    );

    llm.script({ text: 'Done quickly.' });
    const plain = await client.responses.create({ model: 'default', input: 'Quick one' });
    await expect(client.responses.cancel(plain.id)).rejects.toBeInstanceOf(BadRequestError);
    llm.script({ text: 'Done in the background.' });
    const ended = await client.responses.create({ model: 'default', input: 'Quick background one', background: true });
    await vi.waitFor(async () => expect((await client.responses.retrieve(ended.id)).status).toBe('completed'), POLL);
    const refused = await client.responses.cancel(ended.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as BadRequestError).message).toContain('Cannot cancel a completed response');
  });

  it("refuses another token's background response, and background with stream or without store naming the field", async () => {
    llm.script({ text: 'Mine.' });
    const created = await client.responses.create({ model: 'default', input: 'Private', background: true });
    const other = sdk(gateway.url, gateway.tokens.rpc);
    await expect(other.responses.retrieve(created.id)).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(other.responses.cancel(created.id)).rejects.toBeInstanceOf(PermissionDeniedError);
    // The cancel route takes the tokens every /v1 route takes (rpc, api, *), no other.
    for (const token of [gateway.tokens.mcpClient, gateway.tokens.adminOnly, gateway.tokens.ws]) {
      await expect(sdk(gateway.url, token).responses.cancel(created.id)).rejects.toBeInstanceOf(PermissionDeniedError);
    }
    await expect(sdk(gateway.url, gateway.tokens.admin).responses.retrieve(created.id)).resolves.toMatchObject({
      id: created.id,
    });

    const streamed = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.tokens.api}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'default', input: 'x', background: true, stream: true }),
    });
    expect(streamed.status).toBe(400);
    expect(await streamed.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'background' } });
    const stateless = client.responses.create({ model: 'default', input: 'x', background: true, store: false });
    await expect(stateless).rejects.toMatchObject({ status: 400, error: { param: 'store' } });
  });

  it('refuses a token beyond responses.maxBackgroundPerToken with 429, read live', async () => {
    await callRpc(gateway.url, gateway.tokens.admin, 'config.set', {
      section: 'responses',
      key: 'maxBackgroundPerToken',
      value: 1,
    });
    const held = hold();
    llm.script({ text: 'First.', heldUntil: held.promise });
    const first = await client.responses.create({ model: 'default', input: 'One', background: true });
    const refused = client.responses.create({ model: 'default', input: 'Two', background: true });
    await expect(refused).rejects.toBeInstanceOf(RateLimitError);
    await expect(refused).rejects.toMatchObject({
      message: expect.stringContaining('responses.maxBackgroundPerToken'),
    });
    // Another token has its own allowance.
    llm.script({ text: 'Other.' });
    await expect(
      sdk(gateway.url, gateway.tokens.rpc).responses.create({ model: 'default', input: 'Mine', background: true }),
    ).resolves.toMatchObject({ status: 'queued' });
    held.release();
    await vi.waitFor(async () => expect((await client.responses.retrieve(first.id)).status).toBe('completed'), POLL);
    llm.script({ text: 'Now there is room.' });
    await expect(
      client.responses.create({ model: 'default', input: 'Three', background: true }),
    ).resolves.toMatchObject({ status: 'queued' });
  });

  it('answers failed after a restart for one in flight at shutdown, and for one a crashed process left running', async () => {
    const first = await startGateway(options());
    llm.script({ text: 'Never delivered.', heldUntil: new Promise<void>(() => undefined) });
    const inFlight = await sdk(first.url, first.tokens.api).responses.create({
      model: 'default',
      input: 'Long job',
      background: true,
    });
    await vi.waitFor(
      async () =>
        expect((await sdk(first.url, first.tokens.api).responses.retrieve(inFlight.id)).status).toBe('in_progress'),
      POLL,
    );
    await first.app.close();
    // A process killed mid-turn leaves its response in_progress and its run running under an instance that is gone.
    const db = new Database(first.paths.databasePath);
    const crashedBody = JSON.stringify({
      id: 'resp_crashed',
      object: 'response',
      background: true,
      status: 'in_progress',
      error: null,
      output: [],
    });
    db.prepare(
      'INSERT INTO openai_responses (response_id, session_key, client_id, created_at, body, status, background) VALUES (?, ?, ?, ?, ?, ?, 1)',
    ).run(
      'resp_crashed',
      'default:openai-api:openai:resp_crashed',
      'api-client',
      Date.now(),
      crashedBody,
      'in_progress',
    );
    db.prepare(
      `INSERT INTO runs (run_id, root_run_id, kind, session_key, agent_id, task, status, requested_by, started_at, owner_instance)
      VALUES ('resp_crashed', 'resp_crashed', 'response', 'default:openai-api:openai:resp_crashed', 'default', 'Long job', 'running', 'api-client', ?, 'gone-instance')`,
    ).run(Date.now());
    db.close();

    const restarted = await createApp({
      config: first.config,
      paths: first.paths,
      log: createLogger({ level: 'silent' }),
      version: 'test',
      defaultWebDistPath: null,
    });
    try {
      const { url } = await restarted.listen();
      const again = sdk(url, first.tokens.api);
      for (const id of [inFlight.id, 'resp_crashed']) {
        const response = await again.responses.retrieve(id);
        expect(response).toMatchObject({
          id,
          status: 'failed',
          error: { code: 'server_error', message: expect.stringContaining('gateway stopped before') },
        });
        await expect(again.responses.cancel(id)).rejects.toBeInstanceOf(BadRequestError);
      }
    } finally {
      await restarted.close();
      await first.close();
    }
  });
});
