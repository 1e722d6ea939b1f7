// Agent cards (A2A v1.0 §8): one per exposed agent, naming its JSON-RPC interface and bearer authentication, and the
// gateway's card, whose interfaces and skills list every exposed agent (the first is the default).
import { AgentCard, type AgentInterface, type AgentSkill } from '@a2a-js/sdk';
import { agentPath, CARD_PATH, type CardAgent } from './card-agent.js';

/** The A2A version this gateway serves (A2A-Version); the only one. */
export const A2A_VERSION = '1.0';

function jsonRpcInterface(baseUrl: string, agentId: string): AgentInterface {
  return {
    url: `${baseUrl}${agentPath(agentId)}`,
    protocolBinding: 'JSONRPC',
    tenant: '',
    protocolVersion: A2A_VERSION,
  };
}

function skillOf(baseUrl: string, agent: CardAgent): AgentSkill {
  return {
    id: agent.id,
    name: agent.name,
    description: `Talk to the agent "${agent.name}"; its card: ${baseUrl}${agentPath(agent.id)}${CARD_PATH}`,
    tags: ['agent'],
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  };
}

function card(baseUrl: string, version: string, fields: Pick<AgentCard, 'name' | 'description'>, agents: CardAgent[]) {
  const value: AgentCard = {
    ...fields,
    supportedInterfaces: agents.map((agent) => jsonRpcInterface(baseUrl, agent.id)),
    provider: { organization: 'Agent Gateway', url: baseUrl },
    version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            description: 'A gateway token with the rpc scope, as Authorization: Bearer <secret>',
            scheme: 'Bearer',
            bearerFormat: '',
          },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills: agents.map((agent) => skillOf(baseUrl, agent)),
    signatures: [],
  };
  return value;
}

export function agentCard(baseUrl: string, version: string, agent: CardAgent): AgentCard {
  return card(baseUrl, version, { name: agent.name, description: `${agent.name} (agent ${agent.id})` }, [agent]);
}

export function gatewayCard(baseUrl: string, version: string, agents: CardAgent[]): AgentCard {
  const description = `The agents this gateway serves over A2A: ${agents.map((agent) => agent.id).join(', ')}`;
  return card(baseUrl, version, { name: 'Agent Gateway', description }, agents);
}

/** The card as JSON (ProtoJSON field names and enum spellings). */
export const cardJson = (value: AgentCard): unknown => AgentCard.toJSON(value);
