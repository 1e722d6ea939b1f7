// The config sections of the capability modules: memory, approvals, scheduler, audio, media, browser and obs (and the re-exported sections kept in files of their own).
import { z } from 'zod';
import { durationMs, positiveInt } from './schema-units.js';

export { mcpConfigSchema, type McpServerConfig } from './mcp-schema.js';
export { orchestrateConfigSchema, type OrchestrateConfig } from './orchestrate-schema.js';
export { learningConfigSchema, skillsConfigSchema, type LearningConfig, type SkillsConfig } from './learning-schema.js';
export { channelConfigSchema, type ChannelConfig } from './channels-schema.js';
export { terminalConfigSchema, type TerminalConfig } from './terminal-schema.js';
export { budgetsConfigSchema, type BudgetConfig } from './budgets-schema.js';

/** Memory (src/memory): hybrid search over remembered entries, recall before each turn's first model call, the lifecycle sweep. */
export const memoryConfigSchema = z.strictObject({
  /** false: no recall and the memory_search / memory_store tools refuse; memory.* methods still read and prune. */
  enabled: z.boolean().default(true),
  recall: z
    .strictObject({
      /** false: turns run without recalled context (the tools and methods still work). */
      enabled: z.boolean().default(true),
      /** Entries added as context at most, best first. */
      topK: positiveInt.max(50).default(5),
      /** Estimated tokens (characters / 4) the recalled context may take; entries past it are left out. */
      maxTokens: positiveInt.max(100_000).default(800),
      /** Fused (reciprocal-rank) score below which a hit is not recalled; absent: no floor. */
      minScore: z.number().min(0).max(1).optional(),
    })
    .prefault({}),
  /** Rows the persistent embedding cache keeps (model + content hash); the least recently used are evicted past it. */
  embeddingCacheMaxEntries: positiveInt.max(10_000_000).default(100_000),
  lifecycle: z
    .strictObject({
      /** How often the sweep runs; 0 turns it off. */
      sweepIntervalMs: durationMs(0).default(3_600_000),
      /** Active entries not recalled (nor created) for this many days are demoted. */
      demoteAfterDays: positiveInt.max(36_500).default(30),
      /** Demoted entries untouched this many days are evicted. */
      evictAfterDays: positiveInt.max(36_500).default(90),
      /** Demoted entries kept per agent at most; the least recently recalled are evicted first. */
      maxDemotedPerAgent: positiveInt.max(10_000_000).default(10_000),
    })
    .prefault({}),
});

/** Tool-call approvals (src/approvals). */
export const approvalsConfigSchema = z.strictObject({
  /** How long a gated call waits for an operator before it is denied; 0 waits until someone decides. */
  timeoutMs: durationMs(0).default(300_000),
  /** How long an operator's denial answers the same tool with the same arguments in the same session at once. */
  denialCacheMs: durationMs(0).default(600_000),
  /** Consecutive denials in one run tree after which the tree is aborted. */
  denialBreakerThreshold: positiveInt.max(1_000).default(3),
  /** Gated calls of one session waiting at once on this instance; a further one is denied at once. */
  maxPendingPerSession: positiveInt.max(10_000).default(10),
  /** Gated calls of one token's turns waiting at once on this instance; a further one is denied at once. */
  maxPendingPerOwner: positiveInt.max(100_000).default(100),
});

/** Scheduled jobs (cron.*): the jobs live in the store, these keys say how the scheduler fires them. */
export const schedulerConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Fires missed while the gateway was down: `run-once` fires each such job once at start, `skip` records the miss and waits for the next fire. */
  missedFires: z.enum(['skip', 'run-once']).default('run-once'),
  /** Run entries cron.runs returns when the caller names no limit; it never returns more than maxRunEntries. */
  defaultRunEntries: positiveInt.max(1_000).default(20),
  maxRunEntries: positiveInt.max(10_000).default(200),
  /**
   * Shortest interval an `interval` job may have, and shortest gap between two fires of a `cron` one, so a job cannot
   * keep the model busy in a tight loop.
   */
  minIntervalMs: durationMs(1).default(1_000),
  /** How long the leader lease is held per renewal; another instance may take it over once this has passed. */
  leaseTtlMs: durationMs(1).default(30_000),
  /** Jobs one token may have at once; cron.add beyond it is refused (conflict). */
  maxJobsPerOwner: positiveInt.max(100_000).default(20),
  /** Messages of its session's history a job's turn is given at most, the newest; the transcript itself keeps them all. */
  jobHistoryMessages: positiveInt.max(10_000).default(20),
});

/** One speech-to-text engine of `audio.engines`, tried in the order listed (src/audio). */
export const audioEngineSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('openai-compatible'),
    /** A configured provider (its baseUrl and apiKey); absent: the default agent's provider (its main key). */
    provider: z.string().min(1).optional(),
    model: z.string().min(1).max(256).default('whisper-1'),
  }),
  z.strictObject({
    kind: z.literal('pocketsphinx'),
    /** Debian's pocketsphinx 0.8 command-line recogniser. */
    binary: z.string().min(1).default('pocketsphinx_continuous'),
    /** Holds the acoustic model `en-us/`, `en-us.lm.bin` and `cmudict-en-us.dict` (Debian pocketsphinx-en-us). */
    modelDir: z.string().min(1).default('/usr/share/pocketsphinx/model/en-us'),
  }),
]);

/** audio.transcribe (src/audio): engines, the decoder and the limits of one call. */
export const audioConfigSchema = z.strictObject({
  /** Tried in order until one transcribes; [] answers every call with error kind no_keyless_engine. */
  engines: z
    .array(audioEngineSchema)
    .max(8)
    .prefault([{ kind: 'pocketsphinx' }]),
  /** The ffmpeg that decodes every input to 16 kHz mono 16-bit WAV first. */
  ffmpegPath: z.string().min(1).default('ffmpeg'),
  /** Bytes of audio (after base64 decoding) one call may send; the method's params limit follows it at the next restart. */
  maxAudioBytes: positiveInt.max(104_857_600).default(524_288),
  /** Decoded audio past this length is cut off before it is transcribed. */
  maxDurationMs: durationMs(1).default(600_000),
  /** One decoder or recogniser process, or one upstream call, is stopped after this long. */
  timeoutMs: durationMs(1).default(60_000),
  /** Transcriptions running at once (each decodes, then tries the engines); further calls wait their turn. */
  maxConcurrent: positiveInt.max(64).default(2),
  /** Calls that may wait for a slot; beyond, a call is refused `unavailable` with retryAfterMs. Null: 4 × maxConcurrent. */
  maxWaiting: z.number().int().min(0).max(1_024).nullable().default(null),
  /** Bytes of audio the waiting calls may hold together; beyond, a call is refused like one past maxWaiting. */
  maxQueuedBytes: positiveInt.max(1_073_741_824).default(8_388_608),
});

/** Media files (src/media): where they are kept, how long, how large. Every key is read at startup except maxBytes and defaultTtlMs, read per save. */
export const mediaConfigSchema = z.strictObject({
  /** Null: `<dataDir>/media`; a relative path is taken from the data dir. Created 0700, files 0600. */
  dir: z.string().min(1).nullable().default(null),
  /** How long a saved file is served before it answers 410 and the sweep deletes it; 0 keeps files until deleted by hand. */
  defaultTtlMs: durationMs(0).default(86_400_000),
  /** Largest file a save accepts, in bytes. */
  maxBytes: positiveInt.max(4_294_967_296).default(26_214_400),
  /** How often expired files, their records and files without a record are deleted; 0: never. */
  sweepIntervalMs: durationMs(0).default(60_000),
});

/** Browser control (src/browser): one headless Chromium per gateway, driven through playwright-core. */
export const browserConfigSchema = z.strictObject({
  /** The Chromium binary (Debian's `chromium` package). It, headless, viewport and consoleEntriesPerTab apply at each browser start; the rest per call. */
  executablePath: z.string().min(1).default('/usr/bin/chromium'),
  headless: z.boolean().default(true),
  /** The browser is stopped after this long without a call; 0 keeps it running until browser.stop or shutdown. */
  idleMs: durationMs(0).default(300_000),
  /** Upper bound of one browser call (launch, navigation, action, capture). */
  timeoutMs: durationMs(1).default(30_000),
  /** false: pages on loopback, private, link-local and unique-local addresses are refused (navigation and the page's own requests). */
  allowPrivateNetwork: z.boolean().default(false),
  /** The page size in CSS pixels; a screenshot without fullPage has exactly this size. */
  viewport: z
    .strictObject({ width: positiveInt.max(7_680).default(1_280), height: positiveInt.max(4_320).default(720) })
    .prefault({}),
  /** Tabs open at once at most; browser.open beyond it is refused. */
  maxTabs: positiveInt.max(100).default(20),
  /** Console entries kept per tab, newest last; older ones are dropped. */
  consoleEntriesPerTab: positiveInt.max(10_000).default(500),
  /** Characters of a snapshot returned at most; the rest is cut and `truncated: true` says so. */
  maxSnapshotChars: positiveInt.max(10_000_000).default(200_000),
});

/** Observability evidence (src/obs): how long it is kept. */
export const obsConfigSchema = z.strictObject({
  /**
   * Days trajectory, session index, token usage, delivery traces, diagnostics, health signals, audit rows, learning
   * outcome records, learned procedures' uses and finished graph runs are kept; older ones are deleted by an hourly
   * sweep. 0 keeps them forever. Read at every sweep.
   */
  retentionDays: z.number().int().min(0).max(36_500).default(30),
  /** How often diagnostic:billing_snapshot reports the cost and tokens since the previous one; 0 turns it off. */
  billingSnapshotIntervalMs: durationMs(0).default(3_600_000),
});

/** Sub-agent runs (src/runs): the concurrency limit and the spawn queue past it. */
export const runsConfigSchema = z.strictObject({
  /** Spawned sub-agent runs in flight at once on this instance. Applies at the next restart. */
  maxRunning: positiveInt.max(10_000).default(16),
  /** Spawns that wait (session:sub_agent_spawn_queued) while the concurrency limit is reached; past it they are refused. */
  spawnQueue: z.number().int().min(0).max(10_000).default(64),
  /** A finished sub-agent session is archived this long after its run ended (session:sub_agent_archived); 0 never. */
  archiveAfterMs: durationMs(0).default(3_600_000),
});

/** Session lifecycle (src/sessions): idle sessions expire; an expired transcript is kept for a number of days. */
export const sessionsConfigSchema = z.strictObject({
  /** A session not updated for this long expires (session:expired); 0 never. */
  idleTtlMs: durationMs(0).default(0),
  /** Days an expired session's transcript is kept before it is deleted; 0 keeps it. */
  expiredRetentionDays: z.number().int().min(0).max(36_500).default(30),
  /** Time between two sweeps of expiry, archiving and expired-transcript deletion. */
  sweepIntervalMs: durationMs(1).default(60_000),
});
export { otelConfigSchema, type OtelConfig } from './otel-schema.js';
/** The audit log (src/obs/audit.ts): which JSON-RPC calls it records. */
export const auditConfigSchema = z.strictObject({
  /**
   * Also record calls of methods that change nothing (declared readOnly: listings, status, reports). Off by default, so
   * the log holds what changed and who changed it rather than every dashboard refresh. Read at every call.
   */
  reads: z.boolean().default(false),
});
export { a2aConfigSchema, type A2aConfig, type A2aRemoteConfig } from './a2a-schema.js';
