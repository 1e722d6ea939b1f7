// Reflect's fixed bounds: procedure names and descriptions (the Agent Skills rules) and what one synthesis call
// sends and accepts.

/** Characters of a procedure's name (Agent Skills: name ≤ 64); a longer one is counted in nameLengthRejections. */
export const MAX_PROCEDURE_NAME_CHARS = 64;
/** Agent Skills names: lowercase letters, digits and single hyphens between them. */
export const PROCEDURE_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Characters of a procedure's description (Agent Skills: description ≤ 1024). */
export const MAX_PROCEDURE_DESCRIPTION_CHARS = 1_024;

/** Sources of one cluster shown to the model as examples (the newest). */
export const MAX_SYNTHESIS_EXAMPLES = 5;
/** Characters of one example's user message, and of its answer, shown to the model. */
export const MAX_SYNTHESIS_EXAMPLE_CHARS = 2_000;
/** Characters of the model's reply read; a longer reply is cut there (and then fails to parse). */
export const MAX_SYNTHESIS_REPLY_CHARS = 32_000;
/** Tokens the synthesis call may answer with. */
export const SYNTHESIS_MAX_OUTPUT_TOKENS = 2_048;
/** One synthesis call's time limit (ms), besides the provider's own timeout. */
export const SYNTHESIS_TIMEOUT_MS = 120_000;
/** Steps, and tools, a synthesized procedure may list; characters of its goal and of one step. */
export const MAX_PROCEDURE_STEPS = 50;
export const MAX_PROCEDURE_TOOLS = 64;
export const MAX_PROCEDURE_GOAL_CHARS = 2_000;
export const MAX_PROCEDURE_STEP_CHARS = 1_000;

/** Clusters per agent remembered as already taken through synthesis (so a re-read one is not synthesized again). */
export const MAX_DECIDED_CLUSTERS_PER_AGENT = 1_000;
