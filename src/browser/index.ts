// Browser control: one headless Chromium per gateway through playwright-core, a browser context per owning token,
// an egress proxy that keeps pages off private addresses, browser.* methods and browser_* tools.
import type { Logger } from 'pino';
import type { CapabilityModule } from '../capability.js';
import type { BrowserConfig } from '../config/index.js';
import { createBrowserService, type BrowserService } from './browser-service.js';
import { browserMethods, type SaveMedia } from './methods.js';
import { systemNetwork, type EgressNetwork } from './network-guard.js';
import { browserTools } from './tools.js';

export { type EgressNetwork } from './network-guard.js';
export { embeddedIpv4, isPrivateAddress } from './private-address.js';
export type { BrowserService } from './browser-service.js';
export { browserMethods, type SaveMedia } from './methods.js';

export interface BrowserModuleDeps {
  /** The live `browser:` section; executablePath, headless, viewport and consoleEntriesPerTab apply at each browser start, the rest per call. */
  config: () => BrowserConfig;
  /** Stores screenshots and PDFs asked to be saved (media.save); absent: `save: true` answers unavailable. */
  saveMedia?: SaveMedia;
  now: () => number;
  /** Fresh ids (tab ids are made from them). */
  newId: () => string;
  /** How the egress proxy resolves names and connects; the system's DNS and TCP when absent. */
  network?: EgressNetwork;
  log: Logger;
}

export interface BrowserModule extends CapabilityModule {
  readonly browser: BrowserService;
}

export function createBrowserModule(deps: BrowserModuleDeps): BrowserModule {
  const browser = createBrowserService({
    config: deps.config,
    network: deps.network ?? systemNetwork,
    now: deps.now,
    newId: deps.newId,
    log: deps.log,
  });
  const { saveMedia } = deps;
  return {
    name: 'browser',
    browser,
    methods: browserMethods({ browser, saveMedia }),
    tools: browserTools({ browser, saveMedia }),
    stop: () => browser.shutdown(),
  };
}
