// Execution graphs: the named caps on definitions, templates and runs, checked before the work they bound.

export const GRAPH_LIMITS = {
  /** Nodes in one definition. */
  maxNodes: 64,
  /** Items one map node fans out over (a longer array fails the node). */
  maxMapItems: 100,
  /** Items of one map node running at a time. */
  maxMapConcurrency: 8,
  /** Characters one rendered template may produce (a whole-string value counts as its JSON text). */
  maxTemplateOutputChars: 64_000,
  /** Bytes of a definition's JSON text. */
  maxDefinitionBytes: 256_000,
  /** Graph runs one token may have running at once. */
  maxRunsPerToken: 8,
  /** Runs of one graph running at once, over all tokens. */
  maxRunsPerGraph: 16,
  /**
   * Nesting depth of a definition's JSON (the definition is level 0, a node's tool args level 3), of a template tree
   * and of the parentheses and `!`s of one expression.
   */
  maxDepth: 16,
  /** Further attempts of a failed node. */
  maxRetries: 5,
  /** Milliseconds one attempt of a node may take (an approval waits for an operator at most this long). */
  maxNodeTimeoutMs: 86_400_000,
  /** Vars one definition declares. */
  maxVars: 32,
  /** Characters of a graph's description. */
  maxDescriptionChars: 2_000,
  /** Issues one refused definition reports (the first ones found). */
  maxDefinitionIssues: 20,
  /** Characters of one template string in a definition. */
  maxTemplateChars: 16_000,
  /** Characters of one expression: a `when` condition or the inside of one `{{ }}`. */
  maxExpressionChars: 1_000,
  /** Nesting depth of a value a template reads or yields (node outputs, vars) before it is refused. */
  maxValueDepth: 64,
} as const;
