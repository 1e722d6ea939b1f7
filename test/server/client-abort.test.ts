// A client that hangs up mid-request is no server error: the abort it causes is logged at debug, never at error
// level with a stack (issue 30, item 18).
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, TOKENS, type Harness } from '../support/gateway-harness.js';
import { captureLogs } from '../support/log-capture.js';

/** The gateway's level names at error or above. */
const ERROR_LEVELS: readonly unknown[] = ['error', 'fatal'];
/** vi.waitFor waits for an event here, never measures speed. */
const WAIT = { timeout: 10_000, interval: 20 };

describe('client aborts', () => {
  const logs = captureLogs('debug');
  let llm: FakeLlm;
  let gateway: Harness;
  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      log: logs.log,
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
      embeddings: { provider: 'fake', model: 'embed-small' },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });

  /** Lines at error level or above, parsed. */
  const errorLines = () =>
    logs.lines
      .map((line) => JSON.parse(line) as { level: unknown; msg: string })
      .filter((line) => ERROR_LEVELS.includes(line.level));

  it('logs a /v1/embeddings request whose client hung up at debug, with no error line', async () => {
    // The embedding answer is held, so the client is gone while the gateway still waits on it.
    llm.script({ endpoint: 'embeddings', delayMs: 60_000 });
    const request = httpRequest(`${gateway.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
    });
    request.on('error', () => undefined);
    request.end(JSON.stringify({ model: 'embed-small', input: 'hello' }));
    await vi.waitFor(
      () => expect(llm.requests.filter((recorded) => recorded.path === '/v1/embeddings')).toHaveLength(1),
      WAIT,
    );
    request.destroy();
    // Either line says the gateway finished with the request; only the debug one may be written.
    const ended = await Promise.any([
      logs.waitFor('request refused', WAIT.timeout),
      logs.waitFor('request failed', WAIT.timeout),
    ]);
    expect(ended).toContain('request refused');
    expect(errorLines()).toEqual([]);
  });
});
