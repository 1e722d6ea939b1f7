// `agent-gateway init --detect`: finds provider keys and local servers now, and adds them to the config (a new one, as a
// first start writes it, or the existing one through the config store, comments kept, committed to its history);
// providers and agents already configured under the same names are kept as they are.
import { openConfigStore } from '../app-store.js';
import { loadConfigFile, type GatewayPaths } from '../config/index.js';
import { createLogger } from '../obs/index.js';
import { detectModels, probeUrlsOf } from './detect-models.js';
import { describeFindings, describePlan, isEmptyPlan, planDetected, sectionsOf } from './detected-config.js';
import type { CliIo } from './output.js';
import { ensureConfigWithModels, printFirstRun } from './start.js';

export interface InitDetectOptions {
  paths: GatewayPaths;
  /** `--probe-urls`; else AGENT_GATEWAY_PROBE_URLS or the default ports. */
  probeUrls?: string;
}

/** Where a gateway started with the new config listens. */
const DEFAULT_URL = 'http://127.0.0.1:4766';

export async function initDetectCommand({ paths, probeUrls: probeFlag }: InitDetectOptions, io: CliIo): Promise<void> {
  const created = await ensureConfigWithModels(paths, probeFlag, io);
  if (created.created) {
    if (created.adminSecret !== undefined) printFirstRun(io, paths.configPath, created.adminSecret, DEFAULT_URL);
    return;
  }
  const probeUrls = probeUrlsOf(probeFlag, io.env);
  const { config } = await loadConfigFile(paths.configPath, io.env, paths.secretsPath);
  const store = await openConfigStore({
    config,
    paths,
    replicaId: 'cli',
    env: io.env,
    log: createLogger({ level: 'silent' }),
  });
  try {
    const findings = await detectModels(io.env, probeUrls);
    for (const line of describeFindings(findings, probeUrls)) io.out(line);
    const current = store.get();
    const plan = planDetected(findings, {
      providers: new Set(Object.keys(current.providers)),
      agents: new Set(Object.keys(current.agents)),
      hasEmbeddings: current.embeddings !== undefined,
    });
    if (plan.kept.length > 0) io.out(`Kept ${plan.kept.join(', ')} (already configured)`);
    if (isEmptyPlan(plan)) {
      io.out(`Nothing to add to ${paths.configPath}.`);
      return;
    }
    const added = describePlan(plan);
    await store.patch(sectionsOf(plan), `init --detect: added ${added}`);
    io.out(`Added ${added} to ${paths.configPath}`);
  } finally {
    await store.close();
  }
}
