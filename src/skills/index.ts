// Skills: folders in the Agent Skills format (a SKILL.md each) loaded, watched and offered to opted-in agents beside
// their learned procedures, read on demand through skill_read, and a read skill's allowed-tools narrowing the turn.
export { createSkillsModule } from './module.js';
export type { LearnedProcedureSource, OfferedProcedure } from './types.js';
/** For src/method-map.ts (the dashboard's typed calls). */
export type { skillMethods } from './methods.js';
