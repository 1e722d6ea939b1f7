// TLS and mutual TLS on the one port: https and wss with the configured certificate, client certificates when required.
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { createTlsFixtures, type TlsFixtures } from '../support/tls-fixtures.js';
import { connect, connectOpen } from '../support/ws-client.js';

// The server's TLS alert (TLS 1.3 reports it after the client's side of the handshake, as a reset or an alert).
const HANDSHAKE_REFUSED = /certificate|alert|ECONNRESET|socket hang up/i;

interface ClientTls {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

function httpsGet(
  url: string,
  tls: ClientTls,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ...tls, agent: false, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('tls', () => {
  let certs: TlsFixtures;
  beforeAll(async () => {
    certs = await createTlsFixtures();
  });
  afterAll(async () => {
    await certs.remove();
  });

  describe('server certificate only', () => {
    let gateway: Harness;
    beforeAll(async () => {
      gateway = await startGateway({
        gateway: { tls: { certPath: certs.serverCertPath, keyPath: certs.serverKeyPath } },
      });
    });
    afterAll(async () => {
      await gateway.close();
    });

    it('listens on https and serves /health to a client that trusts the CA', async () => {
      expect(gateway.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const response = await httpsGet(`${gateway.url}/health`, { ca: certs.ca });
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toMatchObject({ status: 'ok' });
    });

    it('is also valid for the name localhost', async () => {
      const response = await httpsGet(`${gateway.url.replace('127.0.0.1', 'localhost')}/health`, { ca: certs.ca });
      expect(response.status).toBe(200);
    });

    it('is refused by a client that does not trust the CA', async () => {
      await expect(httpsGet(`${gateway.url}/health`, {})).rejects.toThrow(/self-signed|unable to verify|certificate/i);
    });

    it('serves JSON-RPC over wss', async () => {
      expect(gateway.wsUrl).toMatch(/^wss:\/\//);
      const socket = await connectOpen(gateway.wsUrl, { token: gateway.tokens.rpc, ca: certs.ca });
      try {
        expect(await socket.call('system.ping')).toHaveProperty('result.pong', true);
      } finally {
        await socket.close();
      }
    });
  });

  describe('mutual tls (requireClientCert)', () => {
    let gateway: Harness;
    beforeAll(async () => {
      gateway = await startGateway({
        gateway: {
          tls: {
            certPath: certs.serverCertPath,
            keyPath: certs.serverKeyPath,
            caPath: certs.caPath,
            requireClientCert: true,
          },
        },
      });
    });
    afterAll(async () => {
      await gateway.close();
    });

    const trusted = () => ({ ca: certs.ca, cert: certs.clientCert, key: certs.clientKey });

    it('serves a client presenting a certificate signed by the configured CA', async () => {
      const response = await httpsGet(`${gateway.url}/health`, trusted());
      expect(response.status).toBe(200);
    });

    it('still requires the bearer token after the handshake', async () => {
      const response = await new Promise<number>((resolve, reject) => {
        const req = request(`${gateway.url}/rpc`, { ...trusted(), agent: false, method: 'POST' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end('{"jsonrpc":"2.0","id":1,"method":"system.ping"}');
      });
      expect(response).toBe(401);
    });

    it('fails the handshake of a client without a certificate', async () => {
      await expect(httpsGet(`${gateway.url}/health`, { ca: certs.ca })).rejects.toThrow(HANDSHAKE_REFUSED);
    });

    it('fails the handshake of a client whose certificate another CA signed', async () => {
      await expect(
        httpsGet(`${gateway.url}/health`, { ca: certs.ca, cert: certs.strangerCert, key: certs.strangerKey }),
      ).rejects.toThrow(HANDSHAKE_REFUSED);
    });

    it('serves wss to a client with a certificate and refuses one without', async () => {
      const socket = await connectOpen(gateway.wsUrl, { token: gateway.tokens.rpc, ...trusted() });
      try {
        expect(await socket.call('system.ping')).toHaveProperty('result.pong', true);
      } finally {
        await socket.close();
      }
      const refused = connect(gateway.wsUrl, { token: gateway.tokens.rpc, ca: certs.ca });
      await expect(refused.opened).rejects.toThrow(HANDSHAKE_REFUSED);
    });
  });
});
