// An A2A client of a gateway's exposed agent as real A2A clients are made (the SDK's factory from the agent card),
// the user messages and SendMessage params the A2A tests send, and the gateway options of the agent they talk to.
import { Role, type Message } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import type { HarnessOptions } from '../support/gateway-harness.js';

/** The agent card's address of `agentId` on the gateway at `gatewayUrl`. */
export const cardUrlOf = (gatewayUrl: string, agentId: string) =>
  `${gatewayUrl}/a2a/${agentId}/.well-known/agent-card.json`;

/** An SDK client of the agent at `cardUrl`, sending `token` as the bearer token. */
export async function sdkClientOf(cardUrl: string, token: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
  return factory.createFromUrl(cardUrl, '');
}

let counter = 0;
export function userMessage(text: string): Message {
  counter += 1;
  return {
    messageId: `m-${counter}`,
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** SendMessage params; `returnImmediately` answers with the task before its turn ends. */
export const sendParams = (text: string, returnImmediately = false) => ({
  tenant: '',
  message: userMessage(text),
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
  metadata: undefined,
});

/** The fake LLM as provider `fake` and the `helper` agent, whose current_time tool waits for an operator's approval. */
export function helperGatewayOptions(llmBaseUrl: string): Required<Pick<HarnessOptions, 'providers' | 'agents'>> {
  return {
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llmBaseUrl,
        models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512 }],
      },
    },
    agents: {
      helper: {
        name: 'Helper',
        provider: 'fake',
        model: 'fake-model',
        tools: ['current_time'],
        requireApproval: ['current_time'],
      },
    },
  };
}
