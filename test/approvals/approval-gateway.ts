// Starts the real gateway (harness tokens, the fake LLM as provider) with an `approvals:` section and gated tools.
import type { BusEvent } from '../../src/events/index.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { createApp, type App } from '../../src/app.js';
import {
  resolvePaths,
  validateConfig,
  type ConfigInput,
  type GatewayConfig,
  type GatewayPaths,
} from '../../src/config/index.js';
import { createLogger, type Logger } from '../../src/obs/index.js';
import type { FakeLlm } from '../support/fake-llm-server.js';
import { harnessDocument, TOKENS } from '../support/gateway-harness.js';

type AgentInput = NonNullable<ConfigInput['agents']>[string];

export interface ApprovalGatewayOptions {
  approvals?: ConfigInput['approvals'];
  requireApproval?: AgentInput['requireApproval'];
  log?: Logger;
  /** An existing data dir (a restart); a fresh temporary one by default. */
  dataDir?: string;
}

export interface ApprovalGateway {
  app: App;
  config: GatewayConfig;
  paths: GatewayPaths;
  dataDir: string;
  url: string;
  wsUrl: string;
  tokens: typeof TOKENS;
  /** The bus's recent events (start included), oldest first. */
  events(): BusEvent[];
  close(): Promise<void>;
}

export function approvalDocument(llm: FakeLlm, options: ApprovalGatewayOptions = {}): ConfigInput {
  return {
    ...harnessDocument({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512 }],
        },
      },
      agents: {
        default: {
          name: 'Assistant',
          provider: 'fake',
          model: 'fake-model',
          tools: ['current_time'],
          requireApproval: options.requireApproval ?? ['current_time'],
        },
      },
    }),
    ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
  };
}

export async function startApprovalGateway(
  llm: FakeLlm,
  options: ApprovalGatewayOptions = {},
): Promise<ApprovalGateway> {
  const document = approvalDocument(llm, options);
  const config = validateConfig(document, 'approval test');
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'agent-gateway-approvals-')));
  const paths = resolvePaths({ dataDir }, {});
  await writeFile(paths.configPath, stringifyYaml(document), { mode: 0o600 });
  const app = await createApp({
    version: '0.0.0-test',
    defaultWebDistPath: null,
    config,
    paths,
    log: options.log ?? createLogger({ level: 'silent' }),
  });
  const { url } = await app.listen();
  return {
    app,
    config,
    paths,
    dataDir,
    url,
    wsUrl: `${url.replace(/^http/, 'ws')}/ws`,
    tokens: TOKENS,
    events: () => app.events.recent(500),
    async close() {
      try {
        await app.close();
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}
