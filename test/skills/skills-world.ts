// What the skills tests share: skill folders written into a temp dir, a started gateway over the fake LLM with
// agents opting into skills, the bus events it emits, and the calls the tests make.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import type { ConfigInput } from '../../src/config/index.js';
import type { BusEvent } from '../../src/events/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

type AgentInput = NonNullable<ConfigInput['agents']>[string];

export interface SkillFiles {
  /** The front matter's name; default the folder's. */
  name?: string;
  description?: string;
  /** Raw front matter lines added as they are. */
  extra?: string;
  body?: string;
}

/** Writes `<root>/<folder>/SKILL.md` (and any `files` beside it); returns the folder. */
export async function writeSkill(
  root: string,
  folder: string,
  skill: SkillFiles = {},
  files: Record<string, string> = {},
): Promise<string> {
  const dir = join(root, folder);
  await mkdir(dir, { recursive: true });
  const front = [
    `name: ${skill.name ?? folder}`,
    ...(skill.description === undefined ? [`description: What ${folder} does`] : [`description: ${skill.description}`]),
    ...(skill.extra === undefined ? [] : [skill.extra]),
  ].join('\n');
  await writeFile(
    join(dir, 'SKILL.md'),
    `---\n${front}\n---\n${skill.body ?? `# ${folder}\n\nThe steps of ${folder}.`}\n`,
  );
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

export async function tempSkillsDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'skills-test-'));
}

export interface SkillsWorld {
  llm: FakeLlm;
  gateway: Harness;
  /** Every bus event since the world started listening (after the gateway started). */
  events: BusEvent[];
  close(): Promise<void>;
}

export interface SkillsWorldOptions {
  skills: ConfigInput['skills'];
  /** Agents by id; each gets the fake provider and model. */
  agents: Record<string, Partial<AgentInput>>;
}

export async function startSkillsWorld(options: SkillsWorldOptions): Promise<SkillsWorld> {
  const llm = await startFakeLlm({ models: ['fake-model'] });
  const agents = Object.fromEntries(
    Object.entries(options.agents).map(([id, agent]) => [
      id,
      { name: id, provider: 'fake', model: 'fake-model', ...agent },
    ]),
  );
  const gateway = await startGateway({
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        models: [{ id: 'fake-model', contextWindow: 16_000, maxTokens: 512 }],
      },
    },
    agents,
    skills: options.skills,
  });
  const events: BusEvent[] = [];
  const unsubscribe = gateway.app.events.subscribe((event) => events.push(event));
  return {
    llm,
    gateway,
    events,
    async close() {
      unsubscribe();
      await gateway.close();
      await llm.close();
    },
  };
}

/** A JSON-RPC call with a harness token: its result, or its error. */
export async function call(
  gateway: Harness,
  method: string,
  params: unknown = {},
  token: string = gateway.tokens.admin,
): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }> {
  const response = await callRpc(gateway.url, token, method, params);
  return response as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
}

/** A call that must succeed; its result. */
export async function ok<T>(gateway: Harness, method: string, params: unknown = {}): Promise<T> {
  const response = await call(gateway, method, params);
  if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
  return response.result as T;
}

/** The payloads of the named events in order. */
export function payloads(events: readonly BusEvent[], name: string): Record<string, unknown>[] {
  return events.filter((event) => event.name === name).map((event) => event.payload as Record<string, unknown>);
}

/** Waits until an event of `name` matching `where` arrived. */
export async function eventSeen(
  events: readonly BusEvent[],
  name: string,
  where: Record<string, unknown>,
): Promise<void> {
  await vi.waitFor(
    () => {
      const match = payloads(events, name).some((payload) =>
        Object.entries(where).every(([key, value]) => payload[key] === value),
      );
      if (!match) throw new Error(`no ${name} ${JSON.stringify(where)} yet`);
    },
    { timeout: 10_000, interval: 20 },
  );
}

/** One turn of `agentId` over /rpc. */
export async function turn(gateway: Harness, agentId: string, peerId: string, message: string) {
  return ok<{ response: string; finishReason: string }>(gateway, 'agent.execute', {
    agentId,
    message,
    sessionKey: { tenantId: 'default', userId: 'alice', channelId: 'test', peerId },
  });
}

interface ChatBody {
  messages: { role: string; content?: unknown }[];
  tools?: { type: string; function: { name: string } }[];
}

const bodyOf = (llm: FakeLlm, index: number) => llm.chatRequests().at(index)?.body as ChatBody | undefined;

export const toolNamesOffered = (llm: FakeLlm, index = -1) =>
  (bodyOf(llm, index)?.tools ?? []).map((tool) => tool.function.name);

export const systemTexts = (llm: FakeLlm, index = -1) =>
  (bodyOf(llm, index)?.messages ?? []).filter((m) => m.role === 'system').map((m) => String(m.content));

export const toolResults = (llm: FakeLlm, index = -1) =>
  (bodyOf(llm, index)?.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));

export { rm };
