// browser.act: one user action on the active tab, aimed by CSS/Playwright selector or by a snapshot's element ref.
import type { Locator, Page } from 'playwright-core';
import { invalidParams, notFound, unknownBrowserAction } from '../errors.js';

export const BROWSER_ACTIONS = ['click', 'type', 'fill', 'press', 'select', 'hover', 'scroll', 'wait'] as const;
export type BrowserAction = (typeof BROWSER_ACTIONS)[number];

export interface ActRequest {
  action: string;
  /** A Playwright selector (CSS, `text=…`, `role=…`). */
  selector?: string;
  /** An element ref from the tab's latest snapshot, e.g. `e3`. */
  ref?: string;
  /** What `type` types; what `wait` waits to see; the key `press` presses when `value` is absent. */
  text?: string;
  /** What `fill` fills and `select` selects; the key for `press`; pixels for a page `scroll`; milliseconds for a bare `wait`. */
  value?: string;
}

export interface ActOutcome {
  action: BrowserAction;
  /** The option values `select` ended up with. */
  selected?: string[];
}

const isAction = (action: string): action is BrowserAction => (BROWSER_ACTIONS as readonly string[]).includes(action);

const needs = (action: string, what: string, param: string) =>
  invalidParams(`The '${action}' action needs ${what}`, param);

/** A ref that the page no longer has fails at once instead of waiting out the timeout. */
async function targetOf(page: Page, request: ActRequest): Promise<Locator | undefined> {
  if (request.ref !== undefined) {
    const locator = page.locator(`aria-ref=${request.ref}`);
    if ((await locator.count()) === 0)
      throw notFound(`Element ref ${request.ref} is not on the page; take a new snapshot`, { param: 'ref' });
    return locator;
  }
  return request.selector === undefined ? undefined : page.locator(request.selector).first();
}

function requireTarget(target: Locator | undefined, action: string): Locator {
  if (target === undefined) throw needs(action, 'a selector or a ref', 'selector');
  return target;
}

function requireText(value: string | undefined, action: string, param: 'text' | 'value'): string {
  if (value === undefined) throw needs(action, `'${param}'`, param);
  return value;
}

function wholeNumber(value: string, param: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw invalidParams(`'${param}' must be a whole number`, param);
  return number;
}

/** Validates the action before the browser is touched, so an unknown one costs no launch. */
export function checkAction(action: string): BrowserAction {
  if (!isAction(action)) throw unknownBrowserAction(action, BROWSER_ACTIONS);
  return action;
}

/** `waitMaxMs`: a bare `wait` sleeps at most this long (the call's timeout). */
export async function performAction(page: Page, request: ActRequest, waitMaxMs: number): Promise<ActOutcome> {
  const action = checkAction(request.action);
  const target = await targetOf(page, request);
  switch (action) {
    case 'click':
      await requireTarget(target, action).click();
      return { action };
    case 'type':
      await requireTarget(target, action).pressSequentially(requireText(request.text ?? request.value, action, 'text'));
      return { action };
    case 'fill':
      await requireTarget(target, action).fill(requireText(request.value ?? request.text, action, 'value'));
      return { action };
    case 'press': {
      const key = requireText(request.value ?? request.text, action, 'value');
      if (target === undefined) await page.keyboard.press(key);
      else await target.press(key);
      return { action };
    }
    case 'select': {
      const selected = await requireTarget(target, action).selectOption(
        requireText(request.value ?? request.text, action, 'value'),
      );
      return { action, selected };
    }
    case 'hover':
      await requireTarget(target, action).hover();
      return { action };
    case 'scroll':
      if (target !== undefined) await target.scrollIntoViewIfNeeded();
      else
        await page.mouse.wheel(
          0,
          request.value === undefined ? (page.viewportSize()?.height ?? 0) : wholeNumber(request.value, 'value'),
        );
      return { action };
    case 'wait':
      if (target !== undefined) await target.waitFor({ state: 'visible' });
      else if (request.text !== undefined) await page.getByText(request.text).first().waitFor({ state: 'visible' });
      else
        await page.waitForTimeout(
          Math.min(wholeNumber(requireText(request.value, action, 'value'), 'value'), waitMaxMs),
        );
      return { action };
  }
}
