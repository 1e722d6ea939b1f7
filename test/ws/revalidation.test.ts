// Open sockets re-check their token: a revocation made by another process (the CLI) closes them with 4001.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteTokenPort, openDatabase } from '../../src/store/sqlite/index.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { connect } from '../support/ws-client.js';

describe('websocket token revalidation', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startGateway();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('closes a socket whose token was revoked outside the gateway process', async () => {
    const issued = await harness.app.tokens.create('outside', ['rpc']);
    const socket = connect(harness.wsUrl, { token: issued.secret });
    await socket.opened;
    expect(await socket.call('system.ping')).toHaveProperty('result.pong', true);

    // What `agent-gateway token revoke` does from its own process: a second connection to the same file.
    const db = openDatabase({ path: harness.paths.databasePath });
    try {
      expect(await createSqliteTokenPort(db).revoke('outside', new Date().toISOString())).toBe(true);
    } finally {
      db.close();
    }
    expect(await socket.closed).toEqual({ code: 4001, reason: 'Token revoked' });
  }, 15_000);
});
