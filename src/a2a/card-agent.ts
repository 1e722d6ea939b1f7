// Where A2A cards are served and what names an exposed agent in them; no part of the A2A SDK, so the routes can be
// registered at start without loading it.

export interface CardAgent {
  id: string;
  name: string;
}

export const agentPath = (agentId: string) => `/a2a/${encodeURIComponent(agentId)}`;
export const CARD_PATH = '/.well-known/agent-card.json';
