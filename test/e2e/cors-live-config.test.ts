// gateway.cors.origins changed through config.patch applies at once, without a restart; an invalid origin is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const APP = 'https://app.example.com';
const DEV = 'http://localhost:5173';

describe('e2e: CORS origins applied live', () => {
  let gateway: Harness;
  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  const preflight = (origin: string) =>
    fetch(`${gateway.url}/api/chat`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
  const allowedOrigin = async (origin: string) =>
    (
      await fetch(`${gateway.url}/api/agents`, { headers: { origin, authorization: `Bearer ${gateway.tokens.rpc}` } })
    ).headers.get('access-control-allow-origin');
  const patchOrigins = async (origins: string[]) =>
    callRpc(gateway.url, gateway.tokens.admin, 'config.patch', { gateway: { cors: { origins } } });

  it('turns CORS on, moves it to another origin and off again, each at once', async () => {
    expect((await preflight(APP)).headers.get('access-control-allow-origin')).toBeNull();

    expect((await patchOrigins([APP])).error).toBeUndefined();
    const on = await preflight(APP);
    expect(on.status).toBe(204);
    expect(on.headers.get('access-control-allow-origin')).toBe(APP);
    expect(await allowedOrigin(APP)).toBe(APP);

    expect((await patchOrigins([DEV])).error).toBeUndefined();
    const moved = await preflight(APP);
    expect(moved.status).toBe(403);
    expect(moved.headers.get('access-control-allow-origin')).toBeNull();
    expect(await allowedOrigin(APP)).toBeNull();
    expect((await preflight(DEV)).headers.get('access-control-allow-origin')).toBe(DEV);

    expect((await patchOrigins([])).error).toBeUndefined();
    expect((await preflight(DEV)).headers.get('access-control-allow-origin')).toBeNull();
    expect(await allowedOrigin(DEV)).toBeNull();
  });

  it('refuses an origin with a path or a wildcard and keeps the running origins', async () => {
    expect((await patchOrigins([APP])).error).toBeUndefined();
    for (const bad of [`${APP}/`, '*']) {
      const refused = await patchOrigins([bad]);
      expect(refused.error, bad).toMatchObject({ code: -32602, data: { kind: 'invalid_params' } });
      expect(JSON.stringify(refused.error), bad).toContain('gateway.cors.origins');
    }
    expect((await preflight(APP)).headers.get('access-control-allow-origin')).toBe(APP);
  });
});
