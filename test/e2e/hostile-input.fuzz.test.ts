// Seeded fuzz run: thousands of malformed and hostile inputs at every surface of a started gateway. Each answer
// must be in its surface's envelope and never 5xx, the process must survive, and /health must keep answering.
// FUZZ_SEED=<n> replays one run.
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connect as connectTcp } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import {
  deepJson,
  garbageBody,
  hostileId,
  hostileJsonText,
  hostileValue,
  mutate,
  seededRandom,
  type Random,
} from '../support/hostile-input.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const WEBHOOK_SECRET = 'fuzz-webhook-secret-0123456789';
const TELEGRAM_SECRET = 'fuzz-telegram-secret';
const SLACK_SECRET = 'fuzz-slack-signing-secret';
const CONCURRENCY = 12;

/** Admin methods whose plausible params would take the gateway apart for the rest of the run; rpc tokens still call them. */
const ADMIN_SKIPPED = new Set([
  'gateway.restart',
  'tokens.revoke',
  'tokens.rotate',
  'agents.delete',
  'agents.suspend',
  'config.rollback',
  'config.apply',
  'obs.reset',
  'obs.reset.table',
  // Replaces a whole section (an empty text removes it): its hostile texts have their own test below.
  'config.setSectionYaml',
]);

interface DiscoveredMethod {
  name: string;
  params: { name: string; required: boolean; schema: Record<string, unknown> }[];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Failures collected over the run; the test prints them with the seed instead of stopping at the first. */
const failures: string[] = [];
/** What each phase provoked (`<surface> <status or code>`), so a run that only ever hit one refusal fails. */
const seen = new Set<string>();
function check(condition: boolean, what: string, detail: unknown): void {
  if (!condition && failures.length < 20) failures.push(`${what}: ${JSON.stringify(detail)?.slice(0, 400)}`);
}

function isRpcResponse(value: unknown): boolean {
  if (!isObject(value) || value.jsonrpc !== '2.0' || !('id' in value)) return false;
  const { id } = value;
  if (!(id === null || typeof id === 'string' || typeof id === 'number')) return false;
  if ('result' in value) return !('error' in value);
  const { error } = value;
  return (
    isObject(error) &&
    Number.isInteger(error.code) &&
    typeof error.message === 'string' &&
    (error.data === undefined || isObject(error.data))
  );
}

/** `result` or the error code of one JSON-RPC answer, or `-` when it is none. */
function rpcOutcome(value: unknown): string {
  if (!isObject(value)) return '-';
  if ('result' in value) return 'result';
  return isObject(value.error) ? String(value.error.code) : '-';
}

function isRpcNotification(value: unknown): boolean {
  return isObject(value) && value.jsonrpc === '2.0' && typeof value.method === 'string' && !('id' in value);
}

const isRestError = (value: unknown) =>
  isObject(value) &&
  isObject(value.error) &&
  typeof value.error.code === 'string' &&
  typeof value.error.message === 'string';

const isOpenAiError = (value: unknown) =>
  isObject(value) &&
  isObject(value.error) &&
  typeof value.error.message === 'string' &&
  typeof value.error.type === 'string' &&
  (value.error.param === null || typeof value.error.param === 'string') &&
  'code' in value.error;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Runs `count` generated tasks with a bounded number in flight. */
async function runPool(
  count: number,
  task: (index: number) => Promise<void>,
  concurrency = CONCURRENCY,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/**
 * Raw sockets mostly wait for the server to close them (the headers or keep-alive timeout) and cost nothing
 * meanwhile, so more at once shortens the phase without changing what each one checks.
 */
const RAW_CONCURRENCY = 48;
const runRawPool = (count: number, task: (index: number) => Promise<void>) => runPool(count, task, RAW_CONCURRENCY);

/** A plausible value for one discovered param schema, so mutations reach handlers and not only validation. */
function plausible(random: Random, schema: Json): unknown {
  if (Array.isArray(schema.enum)) return random.pick(schema.enum);
  const anyOf = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(anyOf) && anyOf.length > 0) return plausible(random, random.pick(anyOf as Json[]));
  switch (schema.type) {
    case 'string':
      return random.pick(['default', 'hello', 'agents', 'local', 'small', 'rpc', 'gateway']);
    case 'integer':
    case 'number':
      return random.pick([1, 5, 50]);
    case 'boolean':
      return random.chance(0.5);
    case 'array':
      return [];
    case 'object':
      return isObject(schema.properties)
        ? Object.fromEntries(
            Object.entries(schema.properties).map(([key, value]) => [key, plausible(random, value as Json)]),
          )
        : {};
    default:
      return 'default';
  }
}

describe('fuzz: hostile input at every surface', () => {
  let llm: FakeLlm;
  let gateway: Harness;
  let methods: DiscoveredMethod[];
  let healthChecks = 0;
  const random = seededRandom(SEED);

  beforeAll(async () => {
    llm = await startFakeLlm({ maxRecordedRequests: 10 });
    gateway = await startGateway({
      gateway: {
        rateLimit: { maxRequests: 1_000_000, windowMs: 60_000 },
        wsMessageRateLimit: { maxMessages: 1_000_000, windowMs: 60_000 },
        httpBodyLimitBytes: 65_536,
        wsMaxMessageBytes: 65_536,
        headersTimeoutMs: 2_000,
        webhook: { secret: WEBHOOK_SECRET, agentId: 'default', maxMessageChars: 4_000 },
      },
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
      // Hostile params reach every method's validation; a call that passes it must not launch Chromium or ffmpeg a
      // thousand times (seconds each on this machine): the browser answers `unavailable` and audio has no engine.
      browser: { executablePath: '/nonexistent/chromium' },
      audio: { engines: [] },
      // mcp.* methods reach a configured server that refuses connections (port 9, discard): failures, never a hang.
      mcp: { servers: { fuzz: { transport: 'http', url: 'http://127.0.0.1:9/mcp', timeoutMs: 2_000 } } },
      // The channel endpoints (Telegram webhook mode, Slack Events API); their platforms refuse connections (port 9),
      // and nobody is on their allow-lists, so a post that passes the checks starts no turn.
      channels: {
        tgfuzz: {
          kind: 'telegram',
          agentId: 'default',
          token: '1:fuzz',
          apiBaseUrl: 'http://127.0.0.1:9',
          mode: 'webhook',
          webhookSecret: TELEGRAM_SECRET,
        },
        slackfuzz: {
          kind: 'slack',
          agentId: 'default',
          botToken: 'xoxb-fuzz',
          signingSecret: SLACK_SECRET,
          apiBaseUrl: 'http://127.0.0.1:9/api/',
        },
      },
      // terminal.* reach the drive table (no agent has the terminal_* tools, so no shell is ever started).
      terminal: { enabled: true },
      // A2A's JSON-RPC binding at /a2a/default (issue 43).
      a2a: { expose: ['default'] },
    });
    const discovered = await fetch(`${gateway.url}/rpc`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'rpc.discover' }),
    });
    methods = ((await discovered.json()) as { result: { methods: DiscoveredMethod[] } }).result.methods;
  });
  beforeEach(() => {
    failures.length = 0;
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });

  /** /health answers in its envelope; checked between the phases and at the end. */
  async function expectHealthy(): Promise<void> {
    const started = performance.now();
    const response = await fetch(`${gateway.url}/health`);
    healthChecks += 1;
    check(response.status === 200, '/health status', { status: response.status, ms: performance.now() - started });
  }

  /**
   * Calls admin methods drawn from `templates` `count` times (mutated params, or a hostile value in their place) over
   * POST /rpc with a hostile JSON text; never 5xx, and each JSON-RPC answer a result, -32602, or -32603 of one of
   * `errorKinds`. Records `<label> <outcome> <kind>` in `seen`. `inspect` sees each answer's text first.
   */
  async function fuzzAdminMethods(
    label: string,
    templates: Record<string, () => Record<string, unknown>>,
    count: number,
    errorKinds: readonly string[],
    inspect: (method: string, body: string) => void = () => undefined,
  ): Promise<void> {
    const call = async (method: string, params: unknown) => {
      const response = await fetch(`${gateway.url}/rpc`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.tokens.admin}`, 'content-type': 'application/json' },
        body: hostileJsonText(random, { jsonrpc: '2.0', id: 1, method, params }),
      });
      const body = await response.text();
      check(response.status < 500, `${method} status`, { status: response.status, body: body.slice(0, 200) });
      inspect(method, body);
      return parseJson(body);
    };
    await runPool(count, async () => {
      const method = random.pick(Object.keys(templates));
      const template = templates[method] ?? (() => ({}));
      const params = random.chance(0.85) ? mutate(random, template()) : hostileValue(random);
      const answer = await call(method, params);
      const outcome = rpcOutcome(answer);
      const kind =
        isObject(answer) && isObject(answer.error) && isObject(answer.error.data) ? answer.error.data.kind : undefined;
      seen.add(`${label} ${outcome}${kind === undefined ? '' : ` ${String(kind)}`}`);
      // A body refused before dispatch (too large, not JSON) answers the REST envelope; the /rpc phase checks it.
      if (!isObject(answer) || answer.jsonrpc !== '2.0') return;
      if (outcome === '-' || outcome === '-32700' || outcome === '-32600') return;
      check(
        outcome === 'result' ||
          outcome === '-32602' ||
          (outcome === '-32603' && typeof kind === 'string' && errorKinds.includes(kind)),
        `${method} answer`,
        { params, answer },
      );
    });
  }

  function token(): string | undefined {
    const { tokens } = gateway;
    return random.pick([
      tokens.admin,
      tokens.rpc,
      tokens.rpc,
      tokens.api,
      tokens.mcpClient,
      tokens.adminOnly,
      'wrong-token-0123456789abcdefghijklmnop',
      undefined,
    ]);
  }

  function rpcRequest(): unknown {
    const method = random.chance(0.9)
      ? random.pick(methods)
      : { name: random.pick(['', 'nope.nope', '__proto__', 'rpc.', 'system.ping.x']), params: [] };
    const template = Object.fromEntries(
      method.params
        .filter((param) => param.required || random.chance(0.5))
        .map((param) => [param.name, plausible(random, param.schema)]),
    );
    const params = random.chance(0.8) ? mutate(random, template) : hostileValue(random);
    const request: Json = {
      jsonrpc: random.chance(0.95) ? '2.0' : random.pick(['1.0', 2, null]),
      method: method.name,
      params,
    };
    const id = hostileId(random);
    if (id !== undefined) request.id = id;
    if (random.chance(0.05)) delete request.method;
    return request;
  }

  function rpcPayload(): { text: string | Uint8Array; adminSafe: boolean } {
    if (random.chance(0.1)) return { text: garbageBody(random), adminSafe: true };
    if (random.chance(0.15)) {
      const batch = Array.from({ length: random.int(60) }, () => rpcRequest());
      return {
        text: hostileJsonText(random, batch),
        adminSafe: batch.every((item) => !ADMIN_SKIPPED.has(String((item as Json).method))),
      };
    }
    const request = rpcRequest() as Json;
    return { text: hostileJsonText(random, request), adminSafe: !ADMIN_SKIPPED.has(String(request.method)) };
  }

  it('POST /rpc answers JSON-RPC (or the REST envelope before dispatch) and never 5xx', async () => {
    await runPool(1_000, async () => {
      const { text, adminSafe } = rpcPayload();
      const bearer = adminSafe ? token() : gateway.tokens.rpc;
      const response = await fetch(`${gateway.url}/rpc`, {
        method: 'POST',
        headers: {
          'content-type': random.pick([
            'application/json',
            'application/json',
            'text/plain',
            'application/x-www-form-urlencoded',
          ]),
          ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
        },
        body: text,
      });
      const body = await response.text();
      check(response.status < 500, 'POST /rpc status', { status: response.status, body });
      if (response.status === 204) return check(body === '', 'POST /rpc 204 body', body);
      const parsed = parseJson(body);
      for (const item of Array.isArray(parsed) ? parsed : [parsed]) seen.add(`rpc ${rpcOutcome(item)}`);
      const ok = Array.isArray(parsed)
        ? parsed.every(isRpcResponse)
        : isRpcResponse(parsed) || (response.status >= 400 && isRestError(parsed));
      check(ok, 'POST /rpc envelope', { status: response.status, body });
    });
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  it('WebSocket answers every frame in JSON-RPC and stays usable after hostile frames', async () => {
    const { tokens } = gateway;
    for (const bearer of [tokens.rpc, tokens.admin, tokens.ws]) {
      const socket = new WebSocket(gateway.wsUrl, { headers: { authorization: `Bearer ${bearer}` } });
      const frames: unknown[] = [];
      let closed: { code: number; reason: string } | undefined;
      socket.on('message', (data) => frames.push(parseJson(String(data))));
      socket.on('close', (code, reason) => (closed = { code, reason: reason.toString() }));
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      for (let index = 0; index < 300; index += 1) {
        const { text, adminSafe } = rpcPayload();
        if (bearer === tokens.admin && !adminSafe) continue;
        // Bytes that are not UTF-8 go as binary frames: in a text frame the ws library rightly closes with 1007.
        socket.send(text, { binary: typeof text !== 'string' || random.chance(0.05) });
      }
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 'final-ping', method: 'system.ping' }));
      await expect
        .poll(() => frames.some((frame) => isObject(frame) && frame.id === 'final-ping') || closed !== undefined, {
          timeout: 20_000,
        })
        .toBe(true);
      check(closed === undefined, 'WebSocket closed during the fuzz', closed);
      for (const frame of frames) {
        seen.add(`ws ${rpcOutcome(frame)}`);
        const ok = Array.isArray(frame) ? frame.every(isRpcResponse) : isRpcResponse(frame) || isRpcNotification(frame);
        check(ok, 'WebSocket frame envelope', frame);
      }
      socket.close();
    }
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  const REST_ROUTES = [
    ['GET', '/api/agents'],
    ['GET', '/api/channels'],
    ['GET', '/api/activity'],
    ['POST', '/api/chat'],
    ['GET', '/api/chat/history'],
    ['GET', '/api/chat/stream'],
    ['GET', '/api/events'],
    ['GET', '/api/health'],
    ['DELETE', '/api/agents'],
    ['GET', '/api/../../etc/passwd'],
    ['GET', '/api/%2e%2e/%00'],
    ['PUT', '/api/chat'],
    ['GET', '/media/nope.png'],
    ['GET', '/media/nope.png/meta'],
    ['GET', '/media/%2e%2e%2f%2e%2e%2fgateway.db'],
    ['GET', '/media/%252e%252e%252fconfig.yaml/meta'],
    ['GET', '/media/..%5C..%5Cgateway.db'],
    ['GET', '/media/%2Fetc%2Fpasswd'],
    ['GET', '/media/a%00b'],
    ['GET', '/ready'],
    ['GET', '/api/agents/%zz'],
    ['GET', '/media/%E0%A4%A'],
  ] as const;

  const hostileQuery = () =>
    random.pick([
      '',
      '?message=hi',
      '?message=',
      '?sessionKey=:::',
      '?sessionKey=default:admin:rpc',
      '?limit=-1',
      '?limit=1e309',
      `?message=${'x'.repeat(3_000)}`,
      '?__proto__[x]=1',
      '?token=&token=a',
      '?a=%zz',
    ]);

  it('REST and SSE routes answer {error:{code,message}} and never 5xx', async () => {
    await runPool(800, async () => {
      const [method, path] = random.pick(REST_ROUTES);
      const bearer = token();
      const hasBody = method !== 'GET';
      const url = `${gateway.url}${path}${hostileQuery()}${random.chance(0.3) && bearer !== undefined ? `${path.includes('?') ? '&' : '?'}token=${bearer}` : ''}`;
      const body = hasBody
        ? random.chance(0.7)
          ? hostileJsonText(random, mutate(random, { message: 'hello', sessionKey: 'default:rpc-client:rest' }))
          : garbageBody(random)
        : undefined;
      const response = await fetch(url, {
        method,
        headers: {
          'content-type': random.pick(['application/json', 'text/plain']),
          ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
        },
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(15_000),
      });
      seen.add(`rest ${response.status}`);
      check(response.status < 500, `${method} ${path} status`, { status: response.status });
      if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        // A stream that opened is fine; read its first event and hang up.
        const reader = response.body?.getReader();
        await reader?.read();
        await reader?.cancel();
        return;
      }
      const text = await response.text();
      if (response.status >= 400)
        check(isRestError(parseJson(text)), `${method} ${path} envelope`, { status: response.status, text });
      else check(parseJson(text) !== undefined, `${method} ${path} JSON`, { status: response.status, text });
    });
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  // The fields clients send beyond the spec's table (DESIGN §3 third wave), for mutation to reach.
  const V1_CHAT_EXTRAS = {
    logit_bias: { '1': 5 },
    prompt_cache_key: 'k',
    safety_identifier: 'u',
    service_tier: 'auto',
    top_logprobs: 0,
    modalities: ['text'],
    verbosity: 'low',
  };
  const V1_RESPONSES_EXTRAS = {
    include: [],
    truncation: 'disabled',
    max_tool_calls: 1,
    text: { verbosity: 'low' },
    service_tier: 'default',
    prompt_cache_key: 'k',
  };
  const V1_TEMPLATES = {
    '/v1/chat/completions': () => ({
      model: random.pick(['small', 'default', 'nope', 'local/small']),
      messages: [{ role: 'user', content: 'hi' }],
      stream: random.chance(0.3),
      max_tokens: 10,
      ...(random.chance(0.3) ? V1_CHAT_EXTRAS : {}),
    }),
    '/v1/responses': () => ({
      model: 'small',
      input: random.pick(['hi', [{ role: 'user', content: 'hi' }]]),
      stream: random.chance(0.3),
      previous_response_id: random.chance(0.2) ? 'resp_nope' : undefined,
      background: random.chance(0.2) ? true : undefined,
      ...(random.chance(0.3) ? V1_RESPONSES_EXTRAS : {}),
    }),
    '/v1/responses/resp_nope/cancel': () => ({}),
    '/v1/embeddings': () => ({
      model: 'small',
      input: random.pick(['hi', ['a', 'b'], [1, 2]]),
      ...(random.chance(0.3) ? { dimensions: 4 } : {}),
    }),
  } as const;

  it('/v1 answers the OpenAI error envelope or a well-formed reply, and never 5xx', async () => {
    await runPool(600, async () => {
      const route = random.pick([
        '/v1/chat/completions',
        '/v1/chat/completions',
        '/v1/responses',
        '/v1/embeddings',
        '/v1/models',
        '/v1/models/x%00y',
        '/v1/nope',
        '/v1/models/%zz',
        '/v1/responses/resp_nope/cancel',
      ] as const);
      const bearer = random.pick([
        gateway.tokens.api,
        gateway.tokens.rpc,
        gateway.tokens.admin,
        gateway.tokens.mcpClient,
        'bad',
        undefined,
      ]);
      const template = route in V1_TEMPLATES ? V1_TEMPLATES[route as keyof typeof V1_TEMPLATES]() : undefined;
      const body =
        template === undefined
          ? undefined
          : random.chance(0.85)
            ? hostileJsonText(random, mutate(random, template))
            : garbageBody(random);
      const response = await fetch(`${gateway.url}${route}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          'content-type': 'application/json',
          ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
        },
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await response.text();
      seen.add(`v1 ${response.status}`);
      check(response.status < 500, `${route} status`, { status: response.status, text });
      if (response.status >= 400)
        return check(isOpenAiError(parseJson(text)), `${route} envelope`, { status: response.status, text });
      if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        const events = text
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6));
        check(
          events.every((data) => data === '[DONE]' || parseJson(data) !== undefined),
          `${route} SSE frames`,
          text,
        );
      } else check(isObject(parseJson(text)), `${route} JSON`, text);
    });
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  it('the webhook answers {error:{code,message}} for bad signatures, bodies, replays and oversize messages', async () => {
    await runPool(300, async () => {
      // A replay is a valid delivery sent twice; everything else is mutated or garbage.
      const replay = random.chance(0.15);
      const delivery = { event: 'push', source: 'git', data: hostileValue(random) };
      const body = replay
        ? JSON.stringify(delivery)
        : random.chance(0.7)
          ? hostileJsonText(random, mutate(random, delivery))
          : garbageBody(random);
      const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body);
      const timestamp =
        !replay && random.chance(0.5)
          ? String(Math.floor(Date.now() / 1000) + random.pick([0, 0, 10, -1_000, 1e12]))
          : undefined;
      const hmac = createHmac('sha256', replay || random.chance(0.85) ? WEBHOOK_SECRET : 'wrong-secret-0123456789');
      if (timestamp !== undefined) hmac.update(`${timestamp}.`);
      const valid = `sha256=${hmac.update(bytes).digest('hex')}`;
      const signature = replay ? valid : random.pick([valid, valid, 'sha256=zz', '', `sha256=${'0'.repeat(64)}`]);
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-webhook-signature': signature };
      if (timestamp !== undefined) headers['x-webhook-timestamp'] = timestamp;
      const send = () => fetch(`${gateway.url}/hooks/webhook`, { method: 'POST', headers, body: bytes });
      const responses = replay ? [await send(), await send()] : [await send()];
      for (const response of responses) {
        const text = await response.text();
        seen.add(`webhook ${response.status}`);
        check(response.status < 500, 'webhook status', { status: response.status, text });
        if (response.status >= 400)
          check(isRestError(parseJson(text)), 'webhook envelope', { status: response.status, text });
        else
          check(response.status === 202 && isObject(parseJson(text)), 'webhook accepted', {
            status: response.status,
            text,
          });
      }
    });
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  it('the channel endpoints (Telegram webhook, Slack events) answer 200 or {error:{code,message}} for hostile posts', async () => {
    const telegramUpdate = {
      update_id: 1,
      message: { message_id: 1, date: 1, chat: { id: 1, type: 'private' }, text: 'hi' },
    };
    const slackEvent = {
      type: 'event_callback',
      event: { type: 'message', channel: 'C1', user: 'U1', text: 'hi', ts: '1.1' },
    };
    const slackSignature = (secret: string, timestamp: string, bytes: Buffer) =>
      `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(bytes).digest('hex')}`;
    // The first two posts are well formed and signed, so the phase reaches past validation on both endpoints
    // whatever the seed draws after them.
    await runPool(300, async (index) => {
      const isWellFormed = index < 2;
      const isTelegram = isWellFormed ? index === 0 : random.chance(0.5);
      const template = isWellFormed
        ? isTelegram
          ? telegramUpdate
          : slackEvent
        : random.pick([telegramUpdate, slackEvent]);
      const body = isWellFormed
        ? JSON.stringify(template)
        : random.chance(0.7)
          ? hostileJsonText(random, mutate(random, template))
          : garbageBody(random);
      const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body);
      const headers: Record<string, string> = {
        'content-type': isWellFormed ? 'application/json' : random.pick(['application/json', 'text/plain']),
      };
      if (isTelegram) {
        headers['x-telegram-bot-api-secret-token'] = isWellFormed
          ? TELEGRAM_SECRET
          : random.pick([TELEGRAM_SECRET, TELEGRAM_SECRET, 'wrong', '']);
      } else {
        const skew = isWellFormed ? 0 : random.pick([0, 0, -1_000, 1e12]);
        const timestamp = String(Math.floor(Date.now() / 1000) + skew);
        const secret = isWellFormed || random.chance(0.8) ? SLACK_SECRET : 'wrong-secret';
        headers['x-slack-request-timestamp'] = timestamp;
        headers['x-slack-signature'] =
          isWellFormed || random.chance(0.9) ? slackSignature(secret, timestamp, bytes) : 'v0=zz';
      }
      const path = isTelegram ? '/channels/tgfuzz/telegram' : '/channels/slackfuzz/slack/events';
      const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers, body: bytes });
      const text = await response.text();
      const surface = isTelegram ? 'telegram' : 'slack';
      seen.add(`${surface} ${response.status}`);
      check(response.status < 500, `${surface} status`, { status: response.status, text });
      if (response.status >= 400)
        check(isRestError(parseJson(text)), `${surface} envelope`, { status: response.status, text });
    });
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  const RAW_REQUESTS = [
    'GET / HTTP/1.1\r\n\r\n',
    'GARBAGE\r\n\r\n',
    'GET /health HTTP/9.9\r\nHost: x\r\n\r\n',
    `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    'POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n{',
    'POST /rpc HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nzz\r\n',
    'GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n',
    'GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: x\r\nSec-WebSocket-Version: 99\r\n\r\n',
    'GET /health HTTP/1.1\r\nHost: x\r\n',
    '\u0000\u0001\u0002\u0003',
    `POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 20002\r\n\r\n${deepJson(10_001)}`,
  ];

  it('raw sockets with malformed HTTP get an answer or a close, within the headers timeout', async () => {
    const port = new URL(gateway.url).port;
    await runRawPool(150, async () => {
      const payload = random.pick(RAW_REQUESTS);
      const outcome = await new Promise<string>((resolve) => {
        const socket = connectTcp(Number(port), '127.0.0.1');
        let received = '';
        const timer = setTimeout(() => {
          socket.destroy();
          resolve('hung');
        }, 8_000);
        socket.on('data', (chunk) => (received += chunk.toString('latin1')));
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearTimeout(timer);
          resolve(received);
        });
        socket.write(payload, 'latin1', () => (random.chance(0.5) ? socket.end() : undefined));
      });
      check(outcome !== 'hung', 'raw socket left open past the headers timeout', payload.slice(0, 80));
      const status = /^HTTP\/1\.1 (\d{3})/.exec(outcome)?.[1];
      check(status === undefined || Number(status) < 500, 'raw socket status', outcome.slice(0, 200));
    });
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  /** The JSON-RPC messages an MCP client sends, for mutation to reach past the transport's own checks. */
  const MCP_TEMPLATES = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
    },
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ask_default', arguments: { message: 'hi' } } },
    { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'current_time', arguments: {} } },
    { jsonrpc: '2.0', id: 5, method: 'ping' },
  ];
  /** A notification the transport answers 202; picked as often as all the requests together. */
  const MCP_NOTIFICATION = { jsonrpc: '2.0', method: 'notifications/initialized' };

  it('/mcp answers JSON-RPC, or the REST envelope before its transport, and never 5xx', async () => {
    const { mcpClient, rpc } = gateway.tokens;
    const openSession = async (bearer: string) => {
      const response = await fetch(`${gateway.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${bearer}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(MCP_TEMPLATES[0]),
      });
      await response.text();
      return response.headers.get('mcp-session-id') ?? 'none';
    };
    const owners = [mcpClient, rpc];
    const sessionIds = await Promise.all(owners.map(openSession));
    await runPool(600, async () => {
      const method = random.pick(['POST', 'POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT'] as const);
      const live = random.int(sessionIds.length);
      // Half the requests come from the session's own token, so many reach the SDK transport and the tools.
      const bearer = random.chance(0.5) ? owners[live] : token();
      const sessionId = random.chance(0.6)
        ? sessionIds[live]
        : random.pick([undefined, 'nope', '', 'x'.repeat(5_000), '..%2F']);
      const template = random.chance(0.4) ? MCP_NOTIFICATION : random.pick(MCP_TEMPLATES);
      const body =
        method === 'GET' || method === 'DELETE'
          ? undefined
          : random.chance(0.1)
            ? JSON.stringify([template, template])
            : random.chance(0.75)
              ? hostileJsonText(random, random.chance(0.6) ? template : mutate(random, template))
              : garbageBody(random);
      const accept = random.chance(0.8)
        ? 'application/json, text/event-stream'
        : random.pick(['text/event-stream', 'application/json', undefined]);
      const response = await fetch(`${gateway.url}/mcp`, {
        method,
        headers: {
          'content-type': random.chance(0.9) ? 'application/json' : 'text/plain',
          'mcp-protocol-version': random.pick(['2025-11-25', '2025-11-25', '2025-06-18', '1999-01-01']),
          ...(accept === undefined ? {} : { accept }),
          ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
          ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
        },
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(15_000),
      });
      seen.add(`mcp ${response.status}`);
      // A DELETE that ended a live session: its owner opens another, so the run keeps reaching past the session check.
      if (method === 'DELETE' && response.status === 200 && sessionId === sessionIds[live])
        sessionIds[live] = await openSession(owners[live] ?? mcpClient);
      check(response.status < 500, `${method} /mcp status`, { status: response.status });
      if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        // The session's server-to-client stream opened; hang up.
        await response.body?.cancel();
        return;
      }
      const text = await response.text();
      const parsed = parseJson(text);
      if (response.status >= 400)
        check(isRestError(parsed) || isRpcResponse(parsed), `${method} /mcp envelope`, {
          status: response.status,
          text,
        });
      else if (method === 'POST' && response.status === 200)
        check(isRpcResponse(parsed), `${method} /mcp JSON-RPC`, text);
    });
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  /** A graph definition the gateway accepts; the phase below breaks it in every way graph.define must refuse. */
  const validGraph = (name: string) => ({
    name,
    vars: {
      n: { type: 'number', default: 1 },
      s: { type: 'string', default: 'x' },
      items: { type: 'array', default: [] },
    },
    nodes: [
      { id: 'tick', type: 'tool', tool: 'current_time', args: { note: '{{vars.s}}' } },
      { id: 'then', type: 'tool', tool: 'current_time', args: {}, needs: ['tick'], when: 'vars.n > 0' },
    ],
  });

  /** One nested object `levels` deep: `{"a":{"a":…{}}}`. */
  const nested = (levels: number): Json => (levels === 0 ? {} : { a: nested(levels - 1) });

  /** A definition graph.define must refuse, as JSON text (a `__proto__` key only text can carry). */
  function hostileGraphText(name: string): { kind: string; text: string } {
    const base = validGraph(name);
    const wrap = (definition: unknown) => JSON.stringify({ definition });
    switch (random.int(5)) {
      case 0: {
        // Past GRAPH_LIMITS.maxDepth (16), below the transport's own 64 levels so the graph check answers.
        const levels = 17 + random.int(40);
        return { kind: 'deep', text: wrap({ ...base, nodes: [{ ...base.nodes[0], args: nested(levels) }] }) };
      }
      case 1: {
        // Past maxDefinitionBytes (256,000) inside the 64 KiB body: `1e20` is 4 characters of text, 21 of canonical JSON.
        const wide = `[${Array.from({ length: 12_500 }, () => '1e20').join(',')}]`;
        const text = wrap({ ...base, nodes: [{ ...base.nodes[0], args: { wide: 'WIDE' } }] });
        return { kind: 'huge', text: text.replace('"WIDE"', wide) };
      }
      case 2: {
        const length = 1 + random.int(5);
        const nodes = Array.from({ length }, (_node, index) => ({
          id: `n${index}`,
          type: 'tool',
          tool: 'current_time',
          args: {},
          needs: [`n${(index + 1) % length}`],
        }));
        return { kind: 'cyclic', text: wrap({ ...base, nodes }) };
      }
      case 3: {
        const at = random.pick(['{"id":"tick"', '"args":{', '"vars":{', '{"name":']);
        return { kind: 'proto', text: wrap(base).replace(at, at.replace('{', '{"__proto__":{"x":1},')) };
      }
      default: {
        const node = mutate(random, { ...base.nodes[0] });
        const definition = random.chance(0.5) ? mutate(random, base) : { ...base, nodes: [node, base.nodes[1]] };
        return { kind: 'mutated', text: wrap(definition) };
      }
    }
  }

  it('graph.define refuses deep, huge, cyclic, __proto__ and mutated definitions naming a path; graph.run hostile vars', async () => {
    const admin = gateway.tokens.admin;
    const post = async (bearer: string, text: string) => {
      const response = await fetch(`${gateway.url}/rpc`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: text,
      });
      const body = await response.text();
      check(response.status < 500, 'graph POST /rpc status', { status: response.status, body: body.slice(0, 200) });
      return parseJson(body);
    };
    const call = (bearer: string, method: string, params: unknown) =>
      post(bearer, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
    const listed = async () => {
      const answer = await call(admin, 'graph.list', {});
      const graphs = isObject(answer) && isObject(answer.result) ? answer.result.graphs : undefined;
      return new Set((Array.isArray(graphs) ? graphs : []).map((graph) => String((graph as Json).name)));
    };
    /** Whether an answer is -32602 whose message names the path it carries as data.param (nodes[0].args.a, vars.n). */
    const refusedWithPath = (answer: unknown) =>
      isObject(answer) &&
      isObject(answer.error) &&
      answer.error.code === -32602 &&
      isObject(answer.error.data) &&
      typeof answer.error.data.param === 'string' &&
      answer.error.data.param !== '' &&
      String(answer.error.message).includes(answer.error.data.param);

    const before = await listed();
    const accepted = new Set<string>();
    const kinds = new Set<string>();
    await runPool(120, async (index) => {
      const name = `fuzz-graph-${index}`;
      const { kind, text } = hostileGraphText(name);
      const body = `{"jsonrpc":"2.0","id":${index},"method":"graph.define","params":${text}}`;
      const answer = await post(admin, body);
      const outcome = rpcOutcome(answer);
      seen.add(`graph ${kind} ${outcome}`);
      if (outcome === 'result') {
        // A mutation may have replaced the name with another valid one: the answer says which was stored.
        accepted.add(isObject(answer) && isObject(answer.result) ? String(answer.result.name) : name);
        return check(kind === 'mutated', `graph.define accepted a ${kind} definition`, text.slice(0, 200));
      }
      kinds.add(kind);
      check(refusedWithPath(answer), `graph.define ${kind} answer`, answer);
    });
    check(
      (await call(admin, 'graph.define', { definition: validGraph('fuzz-valid') }).then(rpcOutcome)) === 'result',
      'graph.define valid',
      'fuzz-valid',
    );
    accepted.add('fuzz-valid');
    expect([...kinds].sort()).toEqual(['cyclic', 'deep', 'huge', 'mutated', 'proto']);
    expect([...(await listed())].filter((name) => !before.has(name)).sort()).toEqual([...accepted].sort());

    // Sequential: an accepted run is waited for, so maxRunsPerToken never answers instead of the vars check.
    for (let index = 0; index < 40; index += 1) {
      const vars = random.chance(0.2) ? hostileValue(random) : mutate(random, { n: 2, s: 'y', items: [1] });
      const answer = await call(gateway.tokens.rpc, 'graph.run', { name: 'fuzz-valid', vars });
      const outcome = rpcOutcome(answer);
      seen.add(`graph run ${outcome}`);
      if (outcome !== 'result') {
        check(refusedWithPath(answer), 'graph.run answer', { vars, answer });
        continue;
      }
      const runId = isObject(answer) && isObject(answer.result) ? String(answer.result.runId) : '';
      await expect
        .poll(async () => {
          const status = await call(gateway.tokens.rpc, 'graph.status', { runId });
          return isObject(status) && isObject(status.result) ? status.result.state : status;
        })
        .not.toBe('running');
    }
    expect(seen).toContain('graph run result');
    expect(seen).toContain('graph run -32602');
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  it('terminal.* answer hostile drive ids, filters and sizes with a result, -32602 or not_found, never internal', async () => {
    const templates = {
      'terminal.list': () => ({ agentId: 'default', sessionKey: 'default:alice:term' }),
      'terminal.read': () => ({ driveId: random.pick(['d', 'default', '../x']), maxChars: 50 }),
      'terminal.close': () => ({ driveId: random.pick(['d', 'default', '../x']) }),
    } as const;
    await fuzzAdminMethods('terminal', templates, 300, ['not_found']);
    expect(seen).toContain('terminal result');
    expect(seen).toContain('terminal -32602 invalid_params');
    expect(seen).toContain('terminal -32603 not_found');
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  it('obs.billing.spend answers hostile windows and group keys with a report or -32602, never internal', async () => {
    await runPool(150, async () => {
      const template = {
        window: random.pick(['24h', '7d', '30d', '1h', '', '__proto__']),
        by: random.pick(['agent', 'model', 'token', 'owner', 'constructor']),
      };
      // The template as it is (a valid or a refused enum value), mutated, or a hostile value in place of the params.
      const params = random.chance(0.3)
        ? template
        : random.chance(0.85)
          ? mutate(random, template)
          : hostileValue(random);
      const response = await fetch(`${gateway.url}/rpc`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.tokens.admin}`, 'content-type': 'application/json' },
        body: hostileJsonText(random, { jsonrpc: '2.0', id: 1, method: 'obs.billing.spend', params }),
      });
      const body = await response.text();
      check(response.status < 500, 'obs.billing.spend status', { status: response.status, body: body.slice(0, 200) });
      const answer = parseJson(body);
      const outcome = rpcOutcome(answer);
      seen.add(`spend ${outcome}`);
      // An oversized body is refused before dispatch with the REST envelope (payload_too_large), as on /rpc.
      if (outcome === '-' || outcome === '-32700' || outcome === '-32600' || outcome === 'payload_too_large') return;
      const report = isObject(answer) && isObject(answer.result) ? answer.result : undefined;
      check(
        outcome === '-32602' || (outcome === 'result' && Array.isArray(report?.rows) && Array.isArray(report?.series)),
        'obs.billing.spend answer',
        { params, answer },
      );
    });
    expect(seen).toContain('spend result');
    expect(seen).toContain('spend -32602');
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  // Sequential calls, each accepted budget a config commit: longer than the default timeout on a busy machine.
  it('budgets.set refuses bad scopes, limits, windows and __proto__ with -32602 naming the field, the config unchanged; budgets.mine never leaks', async () => {
    const admin = gateway.tokens.admin;
    const post = async (bearer: string, text: string) => {
      const response = await fetch(`${gateway.url}/rpc`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: text,
      });
      const body = await response.text();
      check(response.status < 500, 'budgets POST /rpc status', { status: response.status, body: body.slice(0, 200) });
      return parseJson(body);
    };
    const call = (bearer: string, method: string, params: unknown) =>
      post(bearer, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
    const listed = async () => {
      const answer = await call(admin, 'budgets.list', {});
      const budgets = isObject(answer) && isObject(answer.result) ? answer.result.budgets : undefined;
      return (Array.isArray(budgets) ? budgets : []).map((budget) => String((budget as Json).id));
    };
    const refusedNamingField = (answer: unknown) =>
      isObject(answer) &&
      isObject(answer.error) &&
      answer.error.code === -32602 &&
      isObject(answer.error.data) &&
      typeof answer.error.data.param === 'string' &&
      answer.error.data.param !== '' &&
      String(answer.error.message).includes(answer.error.data.param.split('.')[0] ?? '');
    const readConfig = () => readFile(gateway.paths.configPath, 'utf8');
    /** A valid budget, then one hostile change of a kind: what the text of its params is. */
    function hostileBudget(index: number): { kind: string; text: string } {
      const budget: Json = {
        id: `fuzz-budget-${index}`,
        scope: random.pick(['global', 'agent:default', 'token:rpc-client', 'tenant:default']),
        window: random.pick(['day', 'month', { rollingMs: 3_600_000 }]),
        maxCostUsd: 1,
        maxTokens: 1_000,
      };
      switch (random.int(5)) {
        case 0:
          budget.scope = random.pick([
            'user:x',
            'agent:',
            'global:x',
            'token:a:b',
            'TENANT:x',
            'agent:../x',
            '',
            'agent:💥',
          ]);
          return { kind: 'scope', text: JSON.stringify(budget) };
        case 1: {
          const field = random.pick(['maxCostUsd', 'maxTokens', 'warnAtFraction']);
          const value = random.pick([
            '-1',
            '0',
            '1e309',
            '-1e309',
            '1.7976931348623157e308',
            '9007199254740993',
            '1e13',
            '-0.5',
            '"NaN"',
          ]);
          return {
            kind: 'limit',
            text: JSON.stringify({ ...budget, [field]: 0 }).replace(`"${field}":0`, `"${field}":${value}`),
          };
        }
        case 2:
          return random.chance(0.5)
            ? { kind: 'proto', text: `{"__proto__":{"maxTokens":5},${JSON.stringify(budget).slice(1)}` }
            : {
                kind: 'proto',
                text: JSON.stringify({ ...budget, id: random.pick(['__proto__', 'constructor', 'prototype']) }),
              };
        case 3:
          budget.window = random.pick([
            { rollingMs: 5 },
            'week',
            { rollingMs: -1 },
            { rollingMs: 3_600_000, extra: 1 },
            null,
          ]);
          return { kind: 'window', text: JSON.stringify(budget) };
        default:
          return { kind: 'mutated', text: JSON.stringify(mutate(random, budget)) };
      }
    }

    const before = await listed();
    const accepted: string[] = [];
    const kinds = new Set<string>();
    // Sequential, so the file read around each refusal is that refusal's alone.
    for (let index = 0; index < 100; index += 1) {
      const { kind, text } = hostileBudget(index);
      const fileBefore = await readConfig();
      const answer = await post(admin, `{"jsonrpc":"2.0","id":${index},"method":"budgets.set","params":${text}}`);
      const outcome = rpcOutcome(answer);
      seen.add(`budgets ${kind} ${outcome}`);
      if (outcome === 'result') {
        accepted.push(isObject(answer) && isObject(answer.result) ? String(answer.result.id) : '');
        check(kind === 'mutated', `budgets.set accepted a ${kind} budget`, text.slice(0, 200));
        continue;
      }
      kinds.add(kind);
      check(refusedNamingField(answer), `budgets.set ${kind} answer`, { text: text.slice(0, 200), answer });
      check((await readConfig()) === fileBefore, `budgets.set ${kind} changed the config`, text.slice(0, 200));
    }
    expect([...kinds].sort()).toEqual(['limit', 'mutated', 'proto', 'scope', 'window']);
    expect((await listed()).filter((id) => !before.includes(id)).sort()).toEqual([...new Set(accepted)].sort());

    for (let index = 0; index < 60; index += 1) {
      const scope = random.chance(0.6)
        ? random.pick(['token:admin', 'tenant:acme', 'global', 'agent:default', 'token:rpc-client', 'tenant:default'])
        : hostileValue(random);
      const answer = await call(
        gateway.tokens.rpc,
        'budgets.mine',
        random.chance(0.8) ? { scope } : mutate(random, { scope }),
      );
      const outcome = rpcOutcome(answer);
      const kind =
        isObject(answer) && isObject(answer.error) && isObject(answer.error.data) ? answer.error.data.kind : undefined;
      seen.add(`budgets.mine ${outcome}${kind === undefined ? '' : ` ${String(kind)}`}`);
      check(
        outcome === 'result' || outcome === '-32602' || (outcome === '-32603' && kind === 'forbidden'),
        'budgets.mine answer',
        { scope, answer },
      );
      if (outcome === 'result' && isObject(answer) && isObject(answer.result) && Array.isArray(answer.result.budgets))
        for (const budget of answer.result.budgets)
          check(
            ['token:rpc-client', 'tenant:default'].includes(String((budget as Json).scope)),
            'budgets.mine answered another scope',
            budget,
          );
    }
    expect(seen).toContain('budgets.mine -32603 forbidden');
    expect(seen).toContain('budgets.mine -32602 invalid_params');
    for (const id of accepted) await call(admin, 'budgets.delete', { id });
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  }, 60_000);
  // A random of its own, so the phases before and after draw what they drew before this one was added.
  it('config.setSectionYaml refuses broken, deep, circular, aliased, __proto__ and off-schema YAML with -32602, the file unchanged', async () => {
    const laughs = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 9; level += 1)
      laughs.push(`a${level}: &a${level} [${Array.from({ length: 10 }, () => `*a${level - 1}`).join(', ')}]`);
    const texts: Record<string, string> = {
      syntax: 'retentionDays: [1, 2\n',
      duplicate: 'retentionDays: 1\nretentionDays: 2\n',
      tabs: 'retentionDays:\n\t- 1\n',
      documents: 'retentionDays: 1\n---\nretentionDays: 2\n',
      circular: 'loop: &loop [*loop]\n',
      deep: `${'['.repeat(300)}${']'.repeat(300)}\n`,
      laughs: `${laughs.join('\n')}\n`,
      proto: '__proto__:\n  retentionDays: 1\n',
      constructor: 'nested:\n  constructor: {}\n',
      tag: 'retentionDays: !!js/function "return 1"\n',
      schema: 'retentionDays: -5\n',
      unknown: 'noSuchKey: 1\n',
      scalar: '"just a string"\n',
      control: 'retentionDays: "\u0000\u0007"\n',
    };
    const readConfig = () => readFile(gateway.paths.configPath, 'utf8');
    for (const [kind, yaml] of Object.entries(texts)) {
      const fileBefore = await readConfig();
      const response = await fetch(`${gateway.url}/rpc`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.tokens.admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'config.setSectionYaml',
          params: { section: 'obs', yaml },
        }),
      });
      const answer = parseJson(await response.text());
      seen.add(`config.setSectionYaml ${kind} ${rpcOutcome(answer)}`);
      check(
        isObject(answer) &&
          isObject(answer.error) &&
          answer.error.code === -32602 &&
          isObject(answer.error.data) &&
          typeof answer.error.data.param === 'string',
        `config.setSectionYaml ${kind} answer`,
        answer,
      );
      check((await readConfig()) === fileBefore, `config.setSectionYaml ${kind} changed the config`, kind);
    }
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  it('/metrics answers the exposition or {error:{code,message}} for hostile paths, methods, queries and tokens', async () => {
    const own = seededRandom(SEED + 1);
    await runPool(200, async () => {
      const method = own.pick(['GET', 'GET', 'GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS']);
      const path = own.pick(['/metrics', '/metrics', '/metrics/', '/metrics/%zz', '/metrics/../rpc', '/METRICS']);
      const query = own.pick([
        '',
        '?name[]=x',
        `?match[]=${'{'.repeat(500)}`,
        '?token=nope',
        '?a=%zz',
        '?__proto__[x]=1',
      ]);
      const bearer = own.pick([undefined, gateway.tokens.admin, gateway.tokens.rpc, 'nope', 'x'.repeat(5_000)]);
      const response = await fetch(`${gateway.url}${path}${query}`, {
        method,
        headers: {
          ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
          accept: own.pick(['*/*', 'application/openmetrics-text', 'text/plain;version=0.0.4', 'application/json']),
        },
        ...(method === 'POST' ? { body: garbageBody(own) } : {}),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await response.text();
      seen.add(`metrics ${response.status}`);
      check(response.status < 500, `${method} ${path} status`, { status: response.status });
      if (response.status === 200 && method === 'GET')
        check(text.includes('# TYPE gateway_http_requests_total counter'), `${method} ${path} exposition`, { text });
      else if (response.status >= 400 && method !== 'HEAD')
        check(isRestError(parseJson(text)), `${method} ${path} envelope`, { status: response.status, text });
    });
    expect(seen).toContain('metrics 200');
    expect(seen).toContain('metrics 404');
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  it('secrets.* answer hostile names and values with a result, -32602 or not_found, never internal', async () => {
    const name = () => random.pick(['FUZZ_KEY', 'fuzz.key-2', '../secrets', 'x'.repeat(300), '']);
    const templates = {
      'secrets.list': () => ({}),
      'secrets.set': () => ({ name: name(), value: random.pick(['value-0123456789', 'two\nlines', '']) }),
      'secrets.delete': () => ({ name: name() }),
    } as const;
    await fuzzAdminMethods('secrets', templates, 300, ['not_found']);
    expect(seen).toContain('secrets result');
    expect(seen).toContain('secrets -32602 invalid_params');
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  // Last of the surfaces, so the seeded inputs of the ones before stay as they were.
  const A2A_TEMPLATES = [
    () => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
        configuration: { returnImmediately: random.chance(0.5) },
      },
    }),
    () => ({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: 'nope', historyLength: 2 } }),
    () => ({ jsonrpc: '2.0', id: 3, method: 'ListTasks', params: { pageSize: 5, pageToken: 'x' } }),
    () => ({ jsonrpc: '2.0', id: 4, method: 'CancelTask', params: { id: 'nope' } }),
    () => ({ jsonrpc: '2.0', id: 5, method: 'SubscribeToTask', params: { id: 'nope' } }),
    () => ({ jsonrpc: '2.0', id: 6, method: 'message/send', params: {} }),
  ];

  it('A2A cards and JSON-RPC answer JSON-RPC, the REST envelope or SSE, and never 5xx', async () => {
    await runPool(300, async () => {
      const path = random.pick([
        '/a2a/default',
        '/a2a/default',
        '/a2a/nope',
        '/a2a/default/.well-known/agent-card.json',
        '/.well-known/agent-card.json',
      ] as const);
      const isCard = path.endsWith('.json');
      const bearer = token();
      const template = random.pick(A2A_TEMPLATES);
      const body = random.chance(0.8) ? hostileJsonText(random, mutate(random, template())) : garbageBody(random);
      const response = await fetch(`${gateway.url}${path}${hostileQuery()}`, {
        method: isCard ? 'GET' : 'POST',
        headers: {
          'content-type': random.pick(['application/json', 'application/a2a+json', 'text/plain']),
          ...(random.chance(0.8) ? { 'A2A-Version': random.pick(['1.0', '0.3', '', '1.0.1', '\u00ff']) } : {}),
          ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
        },
        ...(isCard ? {} : { body }),
        signal: AbortSignal.timeout(15_000),
      });
      seen.add(`a2a ${response.status}`);
      check(response.status < 500, `${path} status`, { status: response.status });
      if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        const reader = response.body?.getReader();
        await reader?.read();
        await reader?.cancel();
        return;
      }
      const parsed = parseJson(await response.text());
      if (response.status >= 400) check(isRestError(parsed), `${path} envelope`, { status: response.status, parsed });
      else check(parsed !== undefined, `${path} JSON`, { status: response.status });
    });
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  it('providers.* and tools.list answer hostile names, URLs, keys and models with a result, -32602, not_found or conflict, never internal; no key is echoed', async () => {
    const KEY = 'sk-fuzz-provider-key-0123456789';
    // Never the gateway's own `local` for a save: the turn after the run needs it as it is.
    const name = () =>
      random.pick(['fuzz-provider', 'fuzz.b_2', '__proto__', 'constructor', '../x', 'x'.repeat(300), '']);
    const templates = {
      'providers.list': () => ({}),
      'providers.save': () => ({
        name: name(),
        type: random.pick(['openai', 'openai-compatible', 'anthropic', 'google', 'other']),
        baseUrl: random.pick(['http://127.0.0.1:9/v1', 'not a url', 'javascript:alert(1)', '', null]),
        apiKey: random.pick([KEY, '***', '', null, 'two\nlines']),
        models: random.pick([['a', 'b'], [], ['a', 'a'], ['x'.repeat(300)]]),
      }),
      'providers.delete': () => ({ name: random.pick(['local', 'fuzz-provider', '__proto__', '']) }),
      'tools.list': () => ({}),
    } as const;
    await fuzzAdminMethods('providers', templates, 200, ['not_found', 'conflict'], (method, body) =>
      check(!body.includes(KEY), `${method} echoed the key`, { body: body.slice(0, 200) }),
    );
    expect(seen).toContain('providers result');
    expect(seen).toContain('providers -32602 invalid_params');
    await expectHealthy();
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  it('still serves a normal turn and config read after the run', async () => {
    const headers = { authorization: `Bearer ${gateway.tokens.admin}`, 'content-type': 'application/json' };
    const turn = await fetch(`${gateway.url}/rpc`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agent.execute', params: { message: 'after the storm' } }),
    });
    expect(await turn.json()).toMatchObject({ result: { response: 'Echo: after the storm' } });
    const config = await fetch(`${gateway.url}/rpc`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'config.get', params: { section: 'gateway' } }),
    });
    expect(await config.json()).toMatchObject({ result: expect.any(Object) });
    expect(healthChecks).toBe(16);
  });

  it('reached past validation on every surface, not only one refusal', () => {
    const expected = [
      ...['result', '-32700', '-32600', '-32601', '-32602', '-32603'].flatMap((outcome) => [
        `rpc ${outcome}`,
        `ws ${outcome}`,
      ]),
      ...['200', '400', '401', '403', '404', '413'].map((status) => `rest ${status}`),
      ...['200', '400', '401', '403', '404'].map((status) => `v1 ${status}`),
      ...['202', '400', '401', '409'].map((status) => `webhook ${status}`),
      ...['200', '401', '403', '404'].map((status) => `a2a ${status}`),
      ...['200', '400', '401'].flatMap((status) => [`telegram ${status}`, `slack ${status}`]),
      ...['200', '202', '400', '401', '403', '404', '413'].map((status) => `mcp ${status}`),
    ];
    expect(expected.filter((outcome) => !seen.has(outcome))).toEqual([]);
    expect(llm.requests.length).toBeGreaterThan(0);
  });
});
