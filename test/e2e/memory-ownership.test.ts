// Issue 30 items 2, 6 and 18 through a started gateway: a memory belongs to the token whose session learned it, a
// token reaches another tenant only when config gives it that tenant, a token's default keys are its own, and keys
// with hidden characters are refused. Two rpc tokens, a fake LLM whose received prompts show what recall injected.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const A = { id: 'tok-a', secret: 'tok-a-secret-0123456789abcdefghijklmnop' };
const B = { id: 'tok-b', secret: 'tok-b-secret-0123456789abcdefghijklmnop' };
const ACME = { id: 'tok-acme', secret: 'tok-acme-secret-0123456789abcdefghijkl' };

const A_SECRET_MEMORY = 'The vault code of the Lisbon office is 7731';
const ACME_MEMORY = 'Acme customers may return parcels within 30 days';

interface Entry {
  id: string;
  content: string;
}

describe('e2e: every memory and session key has an owner', () => {
  let llm: FakeLlm;
  let gateway: Harness;
  let aEntryId = '';

  const rpc = (secret: string, method: string, params: Record<string, unknown> = {}) =>
    callRpc(gateway.url, secret, method, params);
  const ok = async (
    secret: string,
    method: string,
    params: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> => {
    const response = await rpc(secret, method, params);
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result as Record<string, unknown>;
  };
  const execute = (secret: string, sessionKey: string, message: string) => {
    const [tenantId, userId, channelId] = sessionKey.split(':');
    return rpc(secret, 'agent.execute', { message, sessionKey: { tenantId, userId, channelId } });
  };
  const searchRpc = async (secret: string, query: string) =>
    ((await ok(secret, 'memory.search', { query, limit: 100 })).results as Entry[]).map((entry) => entry.content);
  const searchRest = async (secret: string, query: string) => {
    const response = await fetch(`${gateway.url}/api/memory/search?q=${encodeURIComponent(query)}&limit=100`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { results: Entry[] }).results.map((entry) => entry.content);
  };
  /** The system text of the last model call: where recalled memories are put. */
  const lastPrompt = (): string => {
    const body = llm.chatRequests().at(-1)?.body as { messages: { role: string; content: unknown }[] };
    return body.messages.map((message) => String(message.content)).join('\n');
  };
  const sessionRow = (sessionKey: string): { owner_id: string | null } | undefined => {
    const db = new Database(gateway.paths.databasePath, { readonly: true });
    try {
      return db.prepare('SELECT owner_id FROM sessions WHERE session_key = ?').get(sessionKey) as
        { owner_id: string | null } | undefined;
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    gateway = await startGateway({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'fake-model', contextWindow: 16000, maxTokens: 512 }],
        },
      },
      agents: {
        default: {
          name: 'Assistant',
          provider: 'fake',
          model: 'fake-model',
          systemPrompt: 'Be brief.',
          tools: ['memory_search', 'memory_store'],
        },
      },
      extraTokens: [
        { id: A.id, secret: A.secret, scopes: ['rpc'] },
        { id: B.id, secret: B.secret, scopes: ['rpc'] },
        { id: ACME.id, secret: ACME.secret, scopes: ['rpc'], tenants: ['acme'] },
      ],
    });
    llm.script({ toolCalls: [{ name: 'memory_store', arguments: { content: A_SECRET_MEMORY } }] }, { text: 'Noted.' });
    expect(await execute(A.secret, 'default:tok-a:notes', 'Remember the vault code')).toHaveProperty('result');
    llm.script({ toolCalls: [{ name: 'memory_store', arguments: { content: ACME_MEMORY } }] }, { text: 'Noted.' });
    expect(await execute(gateway.tokens.admin, 'acme:shop:policies', 'Remember the returns policy')).toHaveProperty(
      'result',
    );
    const all = (await ok(gateway.tokens.admin, 'memory.browse', { limit: 100 })).entries as Entry[];
    aEntryId = all.find((entry) => entry.content === A_SECRET_MEMORY)?.id ?? '';
    expect(aEntryId).not.toBe('');
  }, 30_000);
  afterAll(async () => {
    await gateway?.close();
    await llm?.close();
  });

  it("shows a token its own memories and never another token's, over JSON-RPC and REST", async () => {
    expect(await searchRpc(A.secret, 'vault code Lisbon')).toContain(A_SECRET_MEMORY);
    expect(await searchRest(A.secret, 'vault code Lisbon')).toContain(A_SECRET_MEMORY);
    expect(await searchRpc(B.secret, 'vault code Lisbon')).not.toContain(A_SECRET_MEMORY);
    expect(await searchRest(B.secret, 'vault code Lisbon')).not.toContain(A_SECRET_MEMORY);
    expect(await rpc(B.secret, 'memory.inspect', { id: aEntryId })).toMatchObject({
      error: { data: { kind: 'not_found' } },
    });
    expect(await ok(A.secret, 'memory.inspect', { id: aEntryId })).toMatchObject({
      entry: { id: aEntryId, content: A_SECRET_MEMORY },
    });
    expect(await ok(B.secret, 'memory.inspect')).toMatchObject({ stats: { totalEntries: 0 } });
  });

  it("never recalls another token's memory into a prompt", async () => {
    llm.script({ text: 'I do not know.' });
    expect(
      await execute(B.secret, 'default:tok-b:chat', 'What is the vault code of the Lisbon office?'),
    ).toHaveProperty('result');
    expect(lastPrompt()).toContain('What is the vault code of the Lisbon office?');
    expect(lastPrompt()).not.toContain('7731');
    llm.script({ text: 'It is 7731.' });
    expect(
      await execute(A.secret, 'default:tok-a:chat', 'What is the vault code of the Lisbon office?'),
    ).toHaveProperty('result');
    expect(lastPrompt()).toContain(A_SECRET_MEMORY);
  });

  it("shows a tenant's shared memories to a token given that tenant, and to no other", async () => {
    expect(await searchRpc(ACME.secret, 'return parcels days')).toContain(ACME_MEMORY);
    expect(await searchRest(ACME.secret, 'return parcels days')).toContain(ACME_MEMORY);
    expect(await searchRpc(ACME.secret, 'vault code Lisbon')).not.toContain(A_SECRET_MEMORY);
    expect(await searchRpc(B.secret, 'return parcels days')).not.toContain(ACME_MEMORY);
    llm.script({ text: 'Thirty days.' });
    expect(await execute(ACME.secret, 'acme:desk:chat', 'How many days may customers return parcels?')).toHaveProperty(
      'result',
    );
    expect(lastPrompt()).toContain(ACME_MEMORY);
  });

  it('refuses a session in a tenant the token was not given, before anything is stored or sent to the model', async () => {
    const calls = llm.chatRequests().length;
    const refused = await execute(B.secret, 'acme:shop:chat', 'Hello acme');
    expect(refused).toMatchObject({ error: { code: -32603, data: { kind: 'forbidden' } } });
    expect(String((refused.error as { message: string }).message)).toContain("tenant 'acme'");
    expect(await rpc(B.secret, 'session.send', { key: 'acme:shop:chat', message: 'Hello acme' })).toMatchObject({
      error: { data: { kind: 'forbidden' } },
    });
    expect(sessionRow('acme:shop:chat')).toBeUndefined();
    expect(llm.chatRequests().length).toBe(calls);
  });

  it("reserves a token's default keys for that token: another token cannot squat them", async () => {
    const calls = llm.chatRequests().length;
    for (const channelId of ['rpc', 'rest', 'audio']) {
      expect(await execute(B.secret, `default:tok-a:${channelId}`, 'mine now')).toMatchObject({
        error: { data: { kind: 'forbidden' } },
      });
      expect(sessionRow(`default:tok-a:${channelId}`)).toBeUndefined();
    }
    expect(await rpc(B.secret, 'session.send', { key: 'default:tok-a:rpc', message: 'mine now' })).toMatchObject({
      error: { data: { kind: 'forbidden' } },
    });
    expect(llm.chatRequests().length).toBe(calls);
    llm.script({ text: 'Hello A.' });
    expect(await rpc(A.secret, 'agent.execute', { message: 'Hello' })).toMatchObject({
      result: { response: 'Hello A.', sessionKey: 'default:tok-a:rpc' },
    });
    expect(sessionRow('default:tok-a:rpc')).toEqual({ owner_id: A.id });
    // An admin may still open any key, as it may continue any session.
    llm.script({ text: 'Hello admin.' });
    expect(await execute(gateway.tokens.admin, 'default:tok-a:support', 'Hello')).toHaveProperty('result');
  });

  it('reserves the keys of a token issued with tokens.create at once', async () => {
    // A lookup of an id that is no token reads the list of API tokens, just before the new one is issued.
    llm.script({ text: 'Hello carol.' });
    expect(await execute(B.secret, 'default:carol:chat', 'Hello')).toHaveProperty('result');
    const issued = (await ok(gateway.tokens.admin, 'tokens.create', { id: 'tok-new', scopes: ['rpc'] })) as {
      secret: string;
    };
    expect(await execute(B.secret, 'default:tok-new:rpc', 'mine now')).toMatchObject({
      error: { data: { kind: 'forbidden' } },
    });
    expect(sessionRow('default:tok-new:rpc')).toBeUndefined();
    llm.script({ text: 'Hello new.' });
    expect(await rpc(issued.secret, 'agent.execute', { message: 'Hello' })).toMatchObject({
      result: { sessionKey: 'default:tok-new:rpc' },
    });
  });

  it('refuses keys with NUL or zero-width characters, naming the param', async () => {
    const nul = await rpc(B.secret, 'agent.execute', {
      message: 'hi',
      sessionKey: { tenantId: 'default', userId: 'tok-b\u0000', channelId: 'chat' },
    });
    expect(nul).toMatchObject({ error: { code: -32602, data: { kind: 'invalid_params' } } });
    expect(JSON.stringify(nul.error)).toContain('sessionKey.userId');
    const zeroWidth = await rpc(B.secret, 'session.send', { key: 'default:tok\u200B-b:chat', message: 'hi' });
    expect(zeroWidth).toMatchObject({ error: { code: -32602, data: { kind: 'invalid_params' } } });
    expect(JSON.stringify(zeroWidth.error)).toContain('U+200B');
    expect(sessionRow('default:tok\u200B-b:chat')).toBeUndefined();
  });
});
