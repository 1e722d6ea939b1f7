// The agent tools browser_navigate, browser_snapshot, browser_act, browser_screenshot, browser_pdf, browser_tabs and
// browser_console: the same operations as browser.*, named so approval rules can gate each one. They act in the
// browser context of the session's owner (ctx.ownerId), also when an admin continues someone else's session.
import { z } from 'zod';
import { defineTool, type ToolContext, type ToolDefinition } from '../agents/index.js';
import { invalidParams, mediaStoreUnavailable } from '../errors.js';
import type { BrowserService } from './browser-service.js';
import { actParamsSchema, tabIdSchema, urlSchema, type SaveMedia } from './methods.js';
import { BROWSER_ACTIONS } from './page-actions.js';

export interface BrowserToolsDeps {
  browser: BrowserService;
  saveMedia: SaveMedia | undefined;
}

/** A capture goes to the media store and the model gets its id: base64 bytes would only fill its context. */
async function saveCapture(
  saveMedia: SaveMedia | undefined,
  bytes: Buffer,
  contentType: string,
  toolName: string,
  ctx: ToolContext,
) {
  if (saveMedia === undefined) throw mediaStoreUnavailable();
  // The session's owner, not the caller: an admin continuing another token's session saves into that token's files.
  const { id } = await saveMedia({
    data: bytes,
    contentType,
    ownerId: ctx.ownerId,
    origin: { sessionKey: ctx.sessionKey, toolName },
  });
  return { mediaId: id, contentType, bytes: bytes.length };
}

export function browserTools({ browser, saveMedia }: BrowserToolsDeps): ToolDefinition[] {
  return [
    defineTool({
      name: 'browser_navigate',
      description:
        "Opens an http(s) URL in the browser's active tab; returns the final url, the title and the HTTP status.",
      input: z.strictObject({ url: urlSchema }),
      execute: ({ url }, ctx) => browser.navigate(ctx.ownerId, url, ctx.signal),
    }),
    defineTool({
      name: 'browser_snapshot',
      description:
        "The active tab's accessibility tree as YAML; each element has a ref ([ref=e3]) to pass to browser_act.",
      input: z.strictObject({}),
      execute: (_input, ctx) => browser.snapshot(ctx.ownerId, ctx.signal),
    }),
    defineTool({
      name: 'browser_act',
      description:
        `Does one thing in the active tab: ${BROWSER_ACTIONS.join(', ')}. Aim it with ref (from browser_snapshot) or a CSS selector; ` +
        'type uses text, fill/select/press use value, scroll takes value pixels without a target, wait waits for the target or text.',
      input: actParamsSchema,
      execute: (request, ctx) => browser.act(ctx.ownerId, request, ctx.signal),
    }),
    defineTool({
      name: 'browser_screenshot',
      description:
        'Takes a PNG screenshot of the active tab (fullPage for the whole page) and stores it; returns its media id.',
      input: z.strictObject({ fullPage: z.boolean().optional() }),
      async execute({ fullPage = false }, ctx) {
        if (saveMedia === undefined) throw mediaStoreUnavailable();
        return saveCapture(
          saveMedia,
          await browser.screenshot(ctx.ownerId, { fullPage }, ctx.signal),
          'image/png',
          'browser_screenshot',
          ctx,
        );
      },
    }),
    defineTool({
      name: 'browser_pdf',
      description: 'Prints the active tab as PDF and stores it; returns its media id.',
      input: z.strictObject({}),
      async execute(_input, ctx) {
        if (saveMedia === undefined) throw mediaStoreUnavailable();
        return saveCapture(
          saveMedia,
          await browser.pdf(ctx.ownerId, ctx.signal),
          'application/pdf',
          'browser_pdf',
          ctx,
        );
      },
    }),
    defineTool({
      name: 'browser_tabs',
      description:
        'Lists the browser tabs (list), opens one with an optional url (open), or makes one active (focus) or closes it (close) by tabId.',
      input: z.strictObject({
        action: z.enum(['list', 'open', 'focus', 'close']).optional(),
        tabId: tabIdSchema.optional(),
        url: urlSchema.optional(),
      }),
      async execute({ action = 'list', tabId, url }, ctx) {
        if (action === 'open') return browser.open(ctx.ownerId, url, ctx.signal);
        if (action === 'list') return { tabs: await browser.tabs(ctx.ownerId, ctx.signal) };
        if (tabId === undefined) throw invalidParams(`browser_tabs ${action} needs a tabId`, 'tabId');
        if (action === 'focus') await browser.focus(ctx.ownerId, tabId, ctx.signal);
        else await browser.close(ctx.ownerId, tabId, ctx.signal);
        return { tabs: await browser.tabs(ctx.ownerId, ctx.signal) };
      },
    }),
    defineTool({
      name: 'browser_console',
      description: "The active tab's console messages and page errors, oldest first.",
      input: z.strictObject({}),
      execute: async (_input, ctx) => ({ entries: await browser.console(ctx.ownerId, ctx.signal) }),
    }),
  ];
}
