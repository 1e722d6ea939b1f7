// The skills capability module: the registry of skills folders (loaded at start, watched, reloaded on a config
// change), the skill_read tool, the turn hooks that list skills and narrow tools, and the skills.* methods.
import type { Logger } from 'pino';
import type { AgentRegistry } from '../agents/index.js';
import type { CapabilityModule } from '../capability.js';
import type { ConfigStore } from '../config/index.js';
import type { EventBus } from '../events/index.js';
import { createLearnedScreen } from './learned-screen.js';
import { skillMethods } from './methods.js';
import { createSkillCatalog, type SkillCatalog } from './skill-catalog.js';
import { createSkillTurns } from './skill-hooks.js';
import { skillReadTool } from './skill-read.js';
import { createSkillRegistry, type SkillRegistry } from './skill-registry.js';
import { NO_LEARNED_PROCEDURES, type LearnedProcedureSource } from './types.js';

export interface SkillsModuleDeps {
  /** The live config: skills.* is read on every load and read, and a change of it reloads and re-watches. */
  config: Pick<ConfigStore, 'get' | 'onChange'>;
  /** Where the default skills folder (`<dataDir>/skills`) and relative `skills.dirs` are. */
  dataDir: string;
  agents: Pick<AgentRegistry, 'get' | 'list'>;
  /** The learned procedures offered beside the loaded skills (src/learning); absent: none. */
  learned?: LearnedProcedureSource;
  events: Pick<EventBus, 'emit'>;
  now: () => number;
  log: Logger;
  /** Quiet time after a change in a watched folder before reloading (ms). */
  watchDebounceMs?: number;
}

export interface SkillsModule extends CapabilityModule {
  readonly registry: SkillRegistry;
  readonly catalog: SkillCatalog;
}

export function createSkillsModule(deps: SkillsModuleDeps): SkillsModule {
  const { config, agents, events, now, log } = deps;
  const learned = deps.learned ?? NO_LEARNED_PROCEDURES;
  const skillsConfig = () => config.get().skills;
  const registry = createSkillRegistry({
    config: skillsConfig,
    dataDir: deps.dataDir,
    events,
    log,
    ...(deps.watchDebounceMs === undefined ? {} : { debounceMs: deps.watchDebounceMs }),
  });
  const screen = createLearnedScreen({ config: skillsConfig, events, log });
  const screened: LearnedProcedureSource = {
    offered: (agentId) => screen.admit(learned.offered(agentId)),
    recordUse: (use) => learned.recordUse(use),
  };
  const catalog = createSkillCatalog({ registry, learned: screened, agents });
  const turns = createSkillTurns(catalog, now);
  let unsubscribe = (): void => {};
  return {
    name: 'skills',
    registry,
    catalog,
    tools: [skillReadTool({ catalog, turns, learned, config: skillsConfig, events, log })],
    hooks: turns.hooks,
    methods: skillMethods({ catalog, registry, agents }),
    async start() {
      await registry.reload();
      registry.watch();
      unsubscribe = config.onChange((change) => {
        if (!change.sections.includes('skills')) return;
        registry.watch();
        registry.reload().catch((error: unknown) => log.error({ err: error }, 'reloading the skills failed'));
      });
    },
    stop() {
      unsubscribe();
      registry.close();
    },
  };
}
