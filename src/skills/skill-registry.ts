// The loaded skills: one load of the configured folders at a time, swapped in whole, announced on the bus
// (skill:registry_reset, then skill:loaded each, and skill:rejected with its reason), and reloaded when a folder changes.
import { watch, type FSWatcher } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { SkillsConfig } from '../config/index.js';
import type { EventBus } from '../events/index.js';
import { loadSkills } from './skill-loader.js';
import type { DirSkill, SkillLoad } from './types.js';

/** Quiet time after the last change in a watched folder before the skills reload. */
export const SKILLS_WATCH_DEBOUNCE_MS = 200;

export interface SkillRegistryDeps {
  config: () => SkillsConfig;
  dataDir: string;
  events: Pick<EventBus, 'emit'>;
  log: Logger;
  debounceMs?: number;
}

export interface SkillRegistry {
  get(name: string): DirSkill | undefined;
  list(): readonly DirSkill[];
  /** Loads the folders now (after a load in progress) and announces the result. */
  reload(): Promise<SkillLoad>;
  /** Watches the folders as the config names them now (again after a config change); stops watching when off. */
  watch(): void;
  close(): void;
}

/** The folders the config names, relative ones under the data dir; none: `<dataDir>/skills`. */
export function skillDirsOf(config: SkillsConfig, dataDir: string): string[] {
  if (config.dirs.length === 0) return [join(dataDir, 'skills')];
  return config.dirs.map((dir) => (isAbsolute(dir) ? dir : resolve(dataDir, dir)));
}

export function createSkillRegistry(deps: SkillRegistryDeps): SkillRegistry {
  const { config, dataDir, events, log, debounceMs = SKILLS_WATCH_DEBOUNCE_MS } = deps;
  let byName = new Map<string, DirSkill>();
  let loading: Promise<SkillLoad> = Promise.resolve({ skills: [], rejected: [] });
  let watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  async function loadNow(): Promise<SkillLoad> {
    const current = config();
    const dirs = skillDirsOf(current, dataDir);
    if (current.dirs.length === 0) await mkdir(dirs[0] ?? dataDir, { recursive: true }).catch(() => undefined);
    const load = await loadSkills(dirs, current, log);
    byName = new Map(load.skills.map((skill) => [skill.name, skill]));
    events.emit('skill:registry_reset', { count: load.skills.length });
    for (const skill of load.skills) events.emit('skill:loaded', { skill: skill.name });
    for (const { skill, reason } of load.rejected) {
      log.warn({ skill, reason }, 'skill rejected');
      events.emit('skill:rejected', { skill, reason });
    }
    return load;
  }

  function reload(): Promise<SkillLoad> {
    loading = loading.catch(() => undefined).then(loadNow);
    return loading;
  }

  function stopWatching(): void {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
    watchers = [];
  }

  function scheduleReload(): void {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (closed) return;
      reload().catch((error: unknown) => log.error({ err: error }, 'reloading the skills failed'));
    }, debounceMs);
    timer.unref();
  }

  function watchDir(dir: string): FSWatcher | undefined {
    try {
      // Recursive: an edit inside a skill's folder (its SKILL.md, a file beside it) is a change too.
      const watcher = watch(dir, { persistent: false, recursive: true }, scheduleReload);
      watcher.on('error', (error) => log.warn({ err: error, dir }, 'watching a skills folder failed'));
      return watcher;
    } catch (error) {
      log.warn({ err: error, dir }, 'a skills folder cannot be watched: changes apply on skills.reload');
      return undefined;
    }
  }

  return {
    get: (name) => byName.get(name),
    list: () => [...byName.values()],
    reload,
    watch() {
      stopWatching();
      const current = config();
      if (closed || !current.watch) return;
      watchers = skillDirsOf(current, dataDir).flatMap((dir) => watchDir(dir) ?? []);
    },
    close() {
      closed = true;
      stopWatching();
    },
  };
}
