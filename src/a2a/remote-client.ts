// One delegation to a remote A2A agent: its card fetched, SendMessage over its JSON-RPC interface (the SDK's client),
// then GetTask polls until the task ends, every answer read within a2a.limits.maxRemoteReplyBytes.
import { AgentCard, Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { a2aRemoteReplyTooLarge, a2aRemoteTaskUnfinished, a2aRemoteUnavailable, isGatewayError } from '../errors.js';
import type { A2aRemoteConfig } from '../config/index.js';
import { textPart } from './parts.js';
import { isTerminal } from './task-store.js';

export interface DelegationLimits {
  maxRemoteReplyBytes: number;
  remotePollMs: number;
}

export interface DelegationResult {
  remote: string;
  remoteTaskId: string | null;
  state: string;
  text: string;
  artifacts: { name: string; text: string }[];
}

/** Reads `response`'s body up to `maxBytes`; past it the body is dropped and the call fails. */
async function bounded(remote: string, response: Response, maxBytes: number): Promise<Response> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  if (response.body !== null) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > maxBytes) {
        await reader.cancel();
        throw a2aRemoteReplyTooLarge(remote, maxBytes);
      }
      chunks.push(value);
    }
  }
  return new Response(Buffer.concat(chunks), { status: response.status, headers: response.headers });
}

function boundedFetch(remote: string, config: A2aRemoteConfig, maxBytes: number): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(config.headers)) headers.set(name, value);
    return bounded(remote, await fetch(input, { ...init, headers }), maxBytes);
  };
}

const partText = (part: Part): string =>
  part.content?.$case === 'text'
    ? part.content.value
    : part.content?.$case === 'data'
      ? JSON.stringify(part.content.value ?? null)
      : part.content?.$case === 'url'
        ? `[file: ${part.content.value}]`
        : '';

const messageText = (message: Message | undefined) => (message?.parts ?? []).map(partText).join('\n');

function resultOf(remote: string, task: Task): DelegationResult {
  const artifacts = task.artifacts.map((artifact) => ({
    name: artifact.name,
    text: artifact.parts.map(partText).join('\n'),
  }));
  const text =
    artifacts.length > 0 ? artifacts.map((artifact) => artifact.text).join('\n\n') : messageText(task.status?.message);
  return {
    remote,
    remoteTaskId: task.id,
    state: TaskState[task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED],
    text,
    artifacts,
  };
}

async function connect(remote: string, config: A2aRemoteConfig, limits: DelegationLimits, signal: AbortSignal) {
  const fetchImpl = boundedFetch(remote, config, limits.maxRemoteReplyBytes);
  const response = await fetchImpl(config.url, { signal, headers: { accept: 'application/json' } });
  if (!response.ok) throw a2aRemoteUnavailable(remote, `its agent card answered HTTP ${response.status}`);
  const card = AgentCard.fromJSON(await response.json());
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      preferredTransports: ['JSONRPC'],
    }),
  );
  return factory.createFromAgentCard(card);
}

const delay = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** Polls GetTask until the task is terminal or interrupted (input or auth required), bounded by `signal`. */
async function untilDone(client: Client, task: Task, limits: DelegationLimits, signal: AbortSignal): Promise<Task> {
  let current = task;
  const isWaiting = (state: TaskState | undefined) =>
    !isTerminal(state) && state !== TaskState.TASK_STATE_INPUT_REQUIRED && state !== TaskState.TASK_STATE_AUTH_REQUIRED;
  while (isWaiting(current.status?.state)) {
    await delay(limits.remotePollMs, signal);
    current = await client.getTask({ tenant: '', id: current.id }, { signal });
  }
  return current;
}

/** Sends `text` to the remote and answers its final result; every failure is a bounded GatewayError naming the remote. */
export async function delegate(
  remote: string,
  config: A2aRemoteConfig,
  text: string,
  ids: { messageId: string },
  limits: DelegationLimits,
  signal: AbortSignal,
): Promise<DelegationResult> {
  let client: Client | undefined;
  let taskId: string | undefined;
  try {
    client = await connect(remote, config, limits, signal);
    const message: Message = {
      messageId: ids.messageId,
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [textPart(text)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    const sent = await client.sendMessage(
      { tenant: '', message, configuration: undefined, metadata: undefined },
      { signal },
    );
    if ('messageId' in sent)
      return { remote, remoteTaskId: null, state: 'MESSAGE', text: messageText(sent), artifacts: [] };
    taskId = sent.id;
    const task = await untilDone(client, sent, limits, signal);
    const result = resultOf(remote, task);
    if (task.status?.state !== TaskState.TASK_STATE_COMPLETED)
      throw a2aRemoteTaskUnfinished(remote, task.id, result.state, result.text.slice(0, 2_000));
    return result;
  } catch (error) {
    if (signal.aborted && client !== undefined && taskId !== undefined) {
      // The tool's time is up: the remote task is asked to stop, without waiting on its answer.
      void client.cancelTask({ tenant: '', id: taskId, metadata: undefined }).catch(() => undefined);
    }
    if (signal.aborted) throw signal.reason;
    if (isGatewayError(error)) throw error;
    throw a2aRemoteUnavailable(remote, error instanceof Error ? error.message.slice(0, 500) : String(error));
  }
}
