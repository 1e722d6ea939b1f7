// browser.* methods (catalogue "browser", all rpc): thin adapters from params to the BrowserService, each acting in
// the browser context of the calling token (an admin's included); only browser.stop {all: true} reaches past it.
import type { MethodContext } from '../rpc/types.js';
import { z } from 'zod';
import { insufficientScope, mediaStoreUnavailable } from '../errors.js';
import { defineMethod, noParams } from '../rpc/index.js';
import { sessionCallerOf } from '../sessions/index.js';
import type { BrowserService } from './browser-service.js';
import { BROWSER_ACTIONS } from './page-actions.js';

/** What the browser module needs of the media store: save bytes, get an id back (wired to media.save in app.ts). */
export type SaveMedia = (input: {
  data: Buffer;
  contentType: string;
  /** The token id the file belongs to: only it (and admin callers) may read it back. */
  ownerId: string;
  origin?: { sessionKey: string; traceId?: string; toolName?: string };
}) => Promise<{ id: string }>;

export const BROWSER_URL_MAX_CHARS = 8_192;
export const ACT_TEXT_MAX_CHARS = 100_000;
const SELECTOR_MAX_CHARS = 4_096;

export const urlSchema = z.string().min(1).max(BROWSER_URL_MAX_CHARS);
export const tabIdSchema = z.string().min(1).max(64);
export const actParamsSchema = z.strictObject({
  action: z.string().min(1).max(64),
  selector: z.string().min(1).max(SELECTOR_MAX_CHARS).optional(),
  ref: z
    .string()
    .regex(/^[A-Za-z0-9]{1,32}$/, 'must be an element ref from a snapshot, e.g. e3')
    .optional(),
  text: z.string().max(ACT_TEXT_MAX_CHARS).optional(),
  value: z.string().max(ACT_TEXT_MAX_CHARS).optional(),
});

/** Saves a capture when asked, as the caller's (`ownerId`): `{data}` alone, or `{data, mediaId}`. */
export async function capture(
  bytes: Buffer,
  contentType: string,
  save: boolean,
  saveMedia: SaveMedia | undefined,
  ownerId: string,
) {
  const data = bytes.toString('base64');
  if (!save) return { data };
  if (saveMedia === undefined) throw mediaStoreUnavailable();
  const { id } = await saveMedia({ data: bytes, contentType, ownerId });
  return { data, mediaId: id };
}

/** The caller's token id: whose browser context a call acts in. */
const ownerOf = (ctx: MethodContext) => ctx.caller.clientId;

export function browserMethods({ browser, saveMedia }: { browser: BrowserService; saveMedia: SaveMedia | undefined }) {
  /** Refused before the page is captured, so a gateway without media does no work for nothing. */
  const checkSave = (save: boolean | undefined) => {
    if (save === true && saveMedia === undefined) throw mediaStoreUnavailable();
  };
  return [
    defineMethod({
      name: 'browser.status',
      scope: 'rpc',
      summary:
        "{ running, url?, tabCount? } of the caller's browser context: whether it is open, its active tab's url and its number of tabs.",
      params: noParams,
      handler: (_params, ctx) => browser.status(ownerOf(ctx), ctx.signal),
    }),
    defineMethod({
      name: 'browser.start',
      scope: 'rpc',
      summary:
        "Opens the caller's browser context, starting the headless browser if needed: { started: true }; no effect when it is open. " +
        'Other browser.* methods open it on first use.',
      params: noParams,
      handler: async (_params, ctx) => {
        await browser.start(ownerOf(ctx), ctx.signal);
        return { started: true };
      },
    }),
    defineMethod({
      name: 'browser.stop',
      scope: 'rpc',
      summary:
        "Closes the caller's browser context and its tabs: { stopped: true }; other tokens' contexts are untouched. " +
        'all: true (admin scope) closes every context and stops Chromium.',
      params: z.strictObject({ all: z.boolean().optional() }),
      handler: async ({ all = false }, ctx) => {
        if (all && !sessionCallerOf(ctx.caller).isAdmin) throw insufficientScope('admin');
        await (all ? browser.stopAll(ctx.signal) : browser.stop(ownerOf(ctx), ctx.signal));
        return { stopped: true };
      },
    }),
    defineMethod({
      name: 'browser.navigate',
      scope: 'rpc',
      summary:
        'Loads an http(s) URL in the active tab (one is opened if none is): { tabId, url, title, status } with the final url after ' +
        'redirects and the HTTP status. Private and loopback addresses are refused (forbidden) unless browser.allowPrivateNetwork.',
      params: z.strictObject({ url: urlSchema }),
      handler: ({ url }, ctx) => browser.navigate(ownerOf(ctx), url, ctx.signal),
    }),
    defineMethod({
      name: 'browser.snapshot',
      scope: 'rpc',
      summary:
        "The active tab's accessibility tree as YAML with element refs ([ref=e3]) that browser.act takes as `ref`: " +
        '{ tabId, url, title, snapshot, truncated } (cut at browser.maxSnapshotChars).',
      params: noParams,
      handler: (_params, ctx) => browser.snapshot(ownerOf(ctx), ctx.signal),
    }),
    defineMethod({
      name: 'browser.screenshot',
      scope: 'rpc',
      summary:
        'A PNG of the active tab (the viewport, or the whole page with fullPage): { data: base64 }; with save: true also stored as media: { data, mediaId }.',
      params: z.strictObject({ fullPage: z.boolean().optional(), save: z.boolean().optional() }),
      handler: async ({ fullPage = false, save = false }, ctx) => {
        checkSave(save);
        return capture(
          await browser.screenshot(ownerOf(ctx), { fullPage }, ctx.signal),
          'image/png',
          save,
          saveMedia,
          ctx.caller.clientId,
        );
      },
    }),
    defineMethod({
      name: 'browser.pdf',
      scope: 'rpc',
      summary:
        'The active tab printed as PDF: { data: base64 }; with save: true also stored as media: { data, mediaId }.',
      params: z.strictObject({ save: z.boolean().optional() }),
      handler: async ({ save = false }, ctx) => {
        checkSave(save);
        return capture(
          await browser.pdf(ownerOf(ctx), ctx.signal),
          'application/pdf',
          save,
          saveMedia,
          ctx.caller.clientId,
        );
      },
    }),
    defineMethod({
      name: 'browser.act',
      scope: 'rpc',
      summary:
        `One action in the active tab: ${BROWSER_ACTIONS.join(', ')}; aimed by selector or by a snapshot ref. type types text, fill and ` +
        'select take value, press presses the key in value, scroll scrolls to the target or by value pixels, wait waits for the target, ' +
        'for text, or value ms. { action, tabId, url, title, selected? }; an unknown action is -32602.',
      params: actParamsSchema,
      handler: (request, ctx) => browser.act(ownerOf(ctx), request, ctx.signal),
    }),
    defineMethod({
      name: 'browser.tabs',
      scope: 'rpc',
      summary:
        "The caller's tabs: { tabs: [{ id, url, title, active }] }, in the order they were opened; none when its context is not open.",
      params: noParams,
      handler: async (_params, ctx) => ({ tabs: await browser.tabs(ownerOf(ctx), ctx.signal) }),
    }),
    defineMethod({
      name: 'browser.open',
      scope: 'rpc',
      summary:
        'Opens a new tab, loads url when given, and makes it active: { tabId, url, title }. At most browser.maxTabs tabs per token.',
      params: z.strictObject({ url: urlSchema.optional() }),
      handler: ({ url }, ctx) => browser.open(ownerOf(ctx), url, ctx.signal),
    }),
    defineMethod({
      name: 'browser.focus',
      scope: 'rpc',
      summary:
        "Makes a tab the active one: { focused: true, tabId }; an unknown tab, or another token's, is not_found.",
      params: z.strictObject({ tabId: tabIdSchema }),
      handler: async ({ tabId }, ctx) => {
        await browser.focus(ownerOf(ctx), tabId, ctx.signal);
        return { focused: true, tabId };
      },
    }),
    defineMethod({
      name: 'browser.close',
      scope: 'rpc',
      summary:
        "Closes a tab: { closed: true, tabId }; the most recently opened remaining tab becomes active. Another token's tab is not_found.",
      params: z.strictObject({ tabId: tabIdSchema }),
      handler: async ({ tabId }, ctx) => {
        await browser.close(ownerOf(ctx), tabId, ctx.signal);
        return { closed: true, tabId };
      },
    }),
    defineMethod({
      name: 'browser.console',
      scope: 'rpc',
      summary:
        "The active tab's console messages and uncaught errors, oldest first: { entries: [{ level, text, timestamp (epoch ms) }] } (browser.consoleEntriesPerTab kept).",
      params: noParams,
      handler: async (_params, ctx) => ({ entries: await browser.console(ownerOf(ctx), ctx.signal) }),
    }),
  ];
}
