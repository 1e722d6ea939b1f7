// The fake LLM of test/support as a benchmark upstream, and a gateway that uses it as its only provider.
//
// The fake LLM listens in the calling thread (the bench's main thread), beside the gateway: see
// bench/RESULTS.md, "Chat completions", for why that is the fair setup on a 2-core machine.
import { startFakeLlm } from '../../test/support/fake-llm-server.js';
import { startGateway, type BenchGateway } from './gateway.js';
import type { ListeningServer } from './servers.js';

export interface BenchLlm extends ListeningServer {
  /** `<url>/v1`, the provider baseUrl. */
  baseUrl: string;
}

/** The provider id and model id the bench gateway's `default` agent uses. */
export const BENCH_PROVIDER = 'fake';
export const BENCH_MODEL = 'fake-model';
export const BENCH_AGENT = 'default';

/**
 * A fake LLM on 127.0.0.1 with an empty script, so every chat request gets the echo reply
 * (`Echo: <last user message>`), streamed as one SSE write when `stream` is true. It keeps only the last few
 * requests it received, so memory stays flat over a run.
 */
export async function startBenchLlm(): Promise<BenchLlm> {
  const llm = await startFakeLlm({ models: [BENCH_MODEL], maxRecordedRequests: 8 });
  const { hostname, port } = new URL(llm.url);
  return { host: hostname, port: Number(port), url: llm.url, baseUrl: llm.baseUrl, close: () => llm.close() };
}

export interface GatewayOverLlm extends BenchGateway {
  llm: BenchLlm;
}

/**
 * A fresh fake LLM and a bench gateway (see startGateway) whose one provider is that LLM
 * (`openai-compatible`, no API key) and whose `default` agent uses its model with the default agent
 * settings (no tools). Closing closes both.
 */
export async function startGatewayOverLlm(): Promise<GatewayOverLlm> {
  const llm = await startBenchLlm();
  try {
    const gateway = await startGateway({
      config: {
        providers: {
          [BENCH_PROVIDER]: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: BENCH_MODEL }] },
        },
        agents: { [BENCH_AGENT]: { name: 'Bench', provider: BENCH_PROVIDER, model: BENCH_MODEL } },
      },
    });
    return {
      ...gateway,
      llm,
      async close() {
        try {
          await gateway.close();
        } finally {
          await llm.close();
        }
      },
    };
  } catch (error) {
    await llm.close();
    throw error;
  }
}
