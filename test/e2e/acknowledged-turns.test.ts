// A gateway process killed with SIGKILL the moment a turn's reply arrives keeps that turn: after a restart on the same
// data, session.history shows every turn the client was answered, its message and its reply.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, type RunningCli } from '../support/cli.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { connectOpen, type Frame } from '../support/ws-client.js';

const ADMIN = 'acknowledged-admin-secret-0123456789abcdef';
/** Turns in flight together: their answers arrive at once, so the gateway finishes many turns in one go. */
const TURNS_PER_ROUND = 24;
const ROUNDS = 3;

interface Answered {
  channelId: string;
  message: string;
  response: string;
}

describe('e2e: a gateway killed right after its replies', () => {
  let home: string;
  let llm: FakeLlm;
  let gateway: RunningCli | undefined;

  async function start(): Promise<string> {
    gateway = spawnCli(['start', '--port', '0'], home);
    const [, url = ''] = await gateway.waitForOutput(/Agent Gateway listening on (https?:\/\/[^"\s]+)/, 60_000);
    return url;
  }

  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    home = await mkdtemp(join(tmpdir(), 'agent-gateway-acknowledged-'));
    const config = [
      'gateway:',
      '  tokens:',
      `    - { id: admin, secret: ${ADMIN}, scopes: ["*"] }`,
      'providers:',
      `  fake: { type: openai-compatible, baseUrl: "${llm.baseUrl}", models: [{ id: fake-model }] }`,
      'agents:',
      '  default: { name: Assistant, provider: fake, model: fake-model }',
    ].join('\n');
    await writeFile(join(home, 'config.yaml'), config, { mode: 0o600 });
  }, 60_000);
  afterAll(async () => {
    if (gateway !== undefined && gateway.child.exitCode === null && gateway.child.signalCode === null) {
      gateway.child.kill('SIGKILL');
      await gateway.exited;
    }
    await llm?.close();
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  /**
   * Sends the round's turns, one session (channel) each, holds every model answer until all turns have asked, then
   * releases them together and kills the gateway from the handler of the first reply. The answered turns come back.
   */
  async function killAfterFirstReply(url: string, round: number): Promise<Answered[]> {
    const socket = await connectOpen(`${url.replace(/^http/, 'ws')}/ws`, { token: ADMIN });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const asked = llm.chatRequests().length;
    for (let index = 0; index < TURNS_PER_ROUND; index += 1)
      llm.script({ text: `Answer ${round}.${index} written down`, heldUntil: held });
    const turns = new Map<number, { channelId: string; message: string }>();
    socket.socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as Frame;
      if (turns.has(Number(frame.id)) && frame.result !== undefined && gateway?.child.signalCode === null)
        gateway.child.kill('SIGKILL');
    });
    for (let index = 0; index < TURNS_PER_ROUND; index += 1) {
      const id = round * 1_000 + index;
      const channelId = `kill-${round}-${index}`;
      const message = `Question ${round}.${index}`;
      turns.set(id, { channelId, message });
      socket.send({
        jsonrpc: '2.0',
        id,
        method: 'agent.execute',
        params: { message, sessionKey: { tenantId: 'default', userId: 'alice', channelId } },
      });
    }
    await expect.poll(() => llm.chatRequests().length - asked, { timeout: 30_000 }).toBe(TURNS_PER_ROUND);
    release();
    await gateway?.exited;
    await socket.closed;
    const answered: Answered[] = [];
    for (const frame of socket.received) {
      const turn = turns.get(Number(frame.id));
      const result = frame.result as { response?: unknown } | undefined;
      if (turn !== undefined && typeof result?.response === 'string')
        answered.push({ ...turn, response: result.response });
    }
    return answered;
  }

  it('shows every answered turn in session.history after a restart', async () => {
    let url = await start();
    for (let round = 1; round <= ROUNDS; round += 1) {
      const answered = await killAfterFirstReply(url, round);
      expect(answered.length).toBeGreaterThan(0);
      url = await start();
      const socket = await connectOpen(`${url.replace(/^http/, 'ws')}/ws`, { token: ADMIN });
      const lost: string[] = [];
      for (const turn of answered) {
        const reply = await socket.call('session.history', { channelId: turn.channelId });
        const messages = (
          (reply.result as { messages?: { role: string; content: string }[] } | undefined)?.messages ?? []
        ).map(({ role, content }) => ({ role, content }));
        if (
          JSON.stringify(messages) !==
          JSON.stringify([
            { role: 'user', content: turn.message },
            { role: 'assistant', content: turn.response },
          ])
        )
          lost.push(turn.channelId);
      }
      await socket.close();
      expect({ round, answered: answered.length, lost }).toEqual({ round, answered: answered.length, lost: [] });
    }
  }, 240_000);
});
