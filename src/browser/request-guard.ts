// Stops the pages' own requests (scripts, images, fetches, form posts) from reaching private addresses, so a public
// page cannot use the browser to probe the gateway's network unless browser.allowPrivateNetwork is set.
import type { BrowserContext, Route } from 'playwright-core';
import type { Logger } from 'pino';
import { checkUrl } from './network-guard.js';

export async function guardRequests(context: BrowserContext, allowPrivateNetwork: () => boolean, log: Logger): Promise<void> {
  await context.route('**/*', async function guardRequest(route: Route) {
    const url = route.request().url();
    try {
      // Read per request, so a config change applies to the running browser at once.
      if (allowPrivateNetwork() || !/^https?:/i.test(url)) {
        await route.continue();
        return;
      }
      const verdict = await checkUrl(url, false);
      if (verdict.allowed) {
        await route.continue();
        return;
      }
      log.info({ reason: verdict.reason }, 'blocked a page request to a private address');
      await route.abort('blockedbyclient');
    } catch {
      // The page or the browser closed while the request was paused; there is nothing left to answer.
    }
  });
}
