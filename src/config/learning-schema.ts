// The skills and learning config sections: where skills load from and their caps (src/skills), and how outcomes,
// reflect and the learned-procedure lifecycle run (src/learning).
import { z } from 'zod';
import { durationMs, positiveInt } from './schema-units.js';

/** Skills in the Agent Skills format: folders holding a SKILL.md, loaded from `dirs` and watched. */
export const skillsConfigSchema = z.strictObject({
  /** Folders whose sub-folders are skills; empty: `<dataDir>/skills`. */
  dirs: z.array(z.string().min(1)).max(64).default([]),
  /** Reload when a skills folder changes. */
  watch: z.boolean().default(true),
  /** Skills one registry holds; the ones past it are rejected naming the cap. */
  maxSkills: positiveInt.max(10_000).default(200),
  /** Characters of a SKILL.md's front matter. */
  maxManifestChars: positiveInt.max(65_536).default(2_048),
  /** Characters of a SKILL.md's markdown body. */
  maxBodyChars: positiveInt.max(1_048_576).default(65_536),
  /** Bytes of a file beside SKILL.md that skill_read may return. */
  maxFileBytes: positiveInt.max(16_777_216).default(262_144),
});

export type SkillsConfig = z.infer<typeof skillsConfigSchema>;

/** Learning outcomes, the reflect pass and the lifecycle of learned procedures. */
export const learningConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** How often each agent's successful turns are reflected into candidate procedures; 0: only on skills.reflect. */
  reflectIntervalMs: durationMs(0).default(3_600_000),
  /** Uses in successful outcomes that promote a candidate to active. */
  promoteAfter: positiveInt.max(1_000).default(3),
  /** Distinct sessions with a failed or corrected use that demote active → stale, and stale → archived. */
  demoteAfter: positiveInt.max(1_000).default(2),
  /** Finished turns one reflect pass reads at most, per agent. */
  maxSourceTrajectories: positiveInt.max(100_000).default(200),
  /** Characters of user message and answer one reflect pass reads at most, per agent. */
  maxSourceChars: positiveInt.max(100_000_000).default(200_000),
  /** Learned procedures one agent keeps (not archived); past it the lowest-proof candidates are archived first. */
  maxProceduresPerAgent: positiveInt.max(10_000).default(50),
  /** A model that judges each finished turn's outcome off the turn's path; absent: no judge. */
  judge: z.strictObject({ model: z.string().regex(/^[^/]+\/.+$/, 'must be "<provider>/<modelId>"') }).optional(),
});

export type LearningConfig = z.infer<typeof learningConfigSchema>;
