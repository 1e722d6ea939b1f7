// models.* methods (admin): the configured providers, the model catalog, and a live round trip to one model.
import { z } from 'zod';
import { GatewayError, unknownProvider } from '../errors.js';
import type { BreakerSnapshot } from './circuit-breaker.js';
import type { ModelRouter } from './types.js';
import { defineMethod, noParams } from '../rpc/index.js';

export interface ModelMethodsDeps {
  router: ModelRouter;
  /** A provider's circuit breaker, listed by models.list_providers when given. */
  breakerState?: (provider: string) => BreakerSnapshot | undefined;
}

export function modelMethods({ router, breakerState }: ModelMethodsDeps) {
  return [
    defineMethod({
      name: 'models.list_providers',
      scope: 'admin',
      summary:
        "Names of the configured LLM providers, and each one's circuit breaker { state, consecutiveFailures, openedAt, retryAt } in breakers.",
      params: noParams,
      handler: () => {
        const providers = router.providers();
        if (breakerState === undefined) return { providers, count: providers.length };
        const breakers: Record<string, BreakerSnapshot> = {};
        for (const provider of providers) {
          const snapshot = breakerState(provider);
          if (snapshot !== undefined) breakers[provider] = snapshot;
        }
        return { providers, count: providers.length, breakers };
      },
    }),
    defineMethod({
      name: 'models.list',
      scope: 'admin',
      summary: 'Model catalog entries, all or of one provider.',
      params: z.strictObject({ provider: z.string().min(1).optional() }),
      handler: ({ provider }) => {
        if (provider === undefined) return router.catalog();
        if (!router.providers().includes(provider)) throw unknownProvider(provider);
        return router.catalog().filter((entry) => entry.provider === provider);
      },
    }),
    defineMethod({
      name: 'models.test',
      scope: 'admin',
      summary: 'A tiny real round trip to one model; an upstream failure is reported in the result, not thrown.',
      params: z.strictObject({ model: z.string().min(1), provider: z.string().min(1).optional() }),
      handler: async ({ model, provider }, ctx) => {
        if (provider !== undefined) {
          if (!router.providers().includes(provider)) throw unknownProvider(provider);
          // With an explicit provider any model id may be tried, listed or not (a local server's new model).
          const prefix = `${provider}/`;
          const modelId = model.startsWith(prefix) ? model.slice(prefix.length) : model;
          return router.test({ provider, modelId }, ctx.signal);
        }
        const ref = router.resolve(model);
        if (ref === undefined) {
          throw new GatewayError('not_found', `Unknown model '${model}': use <provider>/<modelId> or pass provider`, {
            param: 'model',
          });
        }
        return router.test(ref, ctx.signal);
      },
    }),
  ];
}
