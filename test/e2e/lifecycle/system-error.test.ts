// system:error: an unexpected failure the mask answers as "Internal error" reaches /api/events with the trace id and
// the component, never the failure's message.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse } from '../../http/rest/sse-reader.js';
import { startGateway, type Harness } from '../../support/gateway-harness.js';

describe('system:error', () => {
  let gateway: Harness;

  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('reports a handler failure hidden behind "Internal error" with its trace id and component, not its message', async () => {
    const events = await openSse(`${gateway.url}/api/events?token=${gateway.tokens.admin}`);
    await events.next();
    // A real store failure: the tokens table is gone under the running gateway.
    const outside = new Database(gateway.paths.databasePath);
    outside.exec('DROP TABLE api_tokens');
    outside.close();

    const response = await fetch(`${gateway.url}/rpc`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${gateway.tokens.admin}`,
        'content-type': 'application/json',
        'x-request-id': 'trace-of-the-failure',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tokens.list' }),
    });
    const answer = (await response.json()) as { error?: { message: string } };
    expect(answer.error?.message).toBe('Internal error');

    const frames = await events.until((frame) => frame.event === 'system:error');
    events.close();
    const data = frames.at(-1)?.data ?? '';
    expect(JSON.parse(data)).toEqual({
      component: 'rpc',
      errorKind: 'SqliteError',
      traceId: 'trace-of-the-failure',
      ts: expect.any(Number),
    });
    expect(data).not.toContain('api_tokens');
  });
});
