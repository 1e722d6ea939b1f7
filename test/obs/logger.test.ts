// The structured logger redacts credentials, and a running gateway never writes a token secret to its log.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/obs/logger.js';
import { startGateway, TOKENS } from '../support/gateway-harness.js';
import { postRpc } from '../support/http-client.js';
import { captureLogs } from '../support/log-capture.js';
import { connect, connectOpen } from '../support/ws-client.js';

describe('logger', () => {
  it('writes "***" for secrets, API keys, tokens and authorization headers', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
    log.info(
      {
        secret: 's1',
        apiKey: 'k1',
        token: 't1',
        authorization: 'Bearer a1',
        provider: { apiKey: 'k2' },
        entry: { secret: 's2', token: 't2' },
        req: { headers: { authorization: 'Bearer a2', cookie: 'c1' }, query: { token: 't3' } },
      },
      'hello',
    );
    const text = lines.join('');
    for (const value of ['s1', 'k1', 't1', 'a1', 'k2', 's2', 't2', 'a2', 'c1', 't3'])
      expect(text).not.toContain(`${value}"`);
    expect(JSON.parse(text)).toMatchObject({
      msg: 'hello',
      secret: '***',
      provider: { apiKey: '***' },
      service: 'agent-gateway',
    });
  });
});

describe('gateway logs', () => {
  it('contain no token secret at debug level, whatever the clients send', async () => {
    const logs = captureLogs('debug');
    const gateway = await startGateway({ log: logs.log, gateway: { wsHeartbeatMs: 0 } });
    try {
      await postRpc(gateway.url, { jsonrpc: '2.0', id: 1, method: 'system.ping' }, TOKENS.rpc);
      await postRpc(gateway.url, { jsonrpc: '2.0', id: 1, method: 'tokens.list' }, TOKENS.rpc);
      await postRpc(
        gateway.url,
        { jsonrpc: '2.0', id: 1, method: 'system.ping' },
        'wrong-secret-0123456789abcdefghijklmnop',
      );
      const issued = await postRpc(
        gateway.url,
        { jsonrpc: '2.0', id: 1, method: 'tokens.create', params: { id: 'x', scopes: [] } },
        TOKENS.admin,
      );
      const newSecret = (issued.body as { result: { secret: string } }).result.secret;
      await fetch(`${gateway.url}/nothing?token=${TOKENS.admin}`);
      const byQuery = await connectOpen(`${gateway.wsUrl}?token=${TOKENS.ws}`);
      await byQuery.call('system.ping');
      await byQuery.close();
      const refused = connect(`${gateway.wsUrl}?token=${TOKENS.api}x`);
      await refused.closed;
      await gateway.app.close();
      expect(logs.lines.length).toBeGreaterThan(0);
      const text = logs.lines.join('');
      for (const secret of [...Object.values(TOKENS), newSecret]) expect(text).not.toContain(secret);
    } finally {
      await gateway.close();
    }
  });
});
