// A2A (issue 43): the gateway's agents served to A2A clients, and remote A2A agents as tools of its agents.
export { createA2aModule } from './module.js';
