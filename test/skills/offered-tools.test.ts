// The tool list a turn asks the tool registry for: an agent without skills hands over its own `tools` array (the
// registry's cache keeps answering it without an await or allocation); an opted-in agent one list per config.
import { describe, expect, it } from 'vitest';
import { createToolRegistry, builtinTools, offeredToolNames } from '../../src/agents/index.js';
import { harnessConfig } from '../support/gateway-harness.js';

function agentConfig(skills: '*' | string[]) {
  const config = harnessConfig({
    agents: { default: { name: 'A', provider: 'fake', model: 'm', tools: ['current_time'], skills } },
    providers: { fake: { type: 'openai-compatible', baseUrl: 'http://127.0.0.1:9', models: [{ id: 'm' }] } },
  });
  const agent = config.agents.default;
  if (agent === undefined) throw new Error('no agent');
  return agent;
}

describe('offeredToolNames', () => {
  it("gives an agent without skills its own tools array, so the registry's cached turn tools are reused", () => {
    const config = agentConfig([]);
    expect(offeredToolNames(config)).toBe(config.tools);
    const registry = createToolRegistry(builtinTools({ now: Date.now }));
    const first = registry.forTurn(offeredToolNames(config));
    expect(registry.forTurn(offeredToolNames(config))).toBe(first);
  });

  it('adds skill_read once per config for an opted-in agent: the same list on every turn', () => {
    for (const skills of ['*', ['a-skill']] as const) {
      const config = agentConfig(skills === '*' ? '*' : [...skills]);
      const names = offeredToolNames(config);
      expect(names).toEqual(['current_time', 'skill_read']);
      expect(offeredToolNames(config)).toBe(names);
    }
  });
});
