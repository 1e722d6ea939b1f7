// Expressions the dashboard tests evaluate inside the page; kept as source text because the test program has no DOM types.

/** The token the dashboard keeps for this tab, or null. */
export const STORED_TOKEN = "sessionStorage.getItem('agent-gateway.token')";

/** Resolves after two animation frames, once resize observers (the charts) have redrawn. */
export const TWO_FRAMES =
  'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))))';

/** How far the document sticks out to the right of the viewport, in px. */
export const HORIZONTAL_OVERFLOW = 'Math.max(0, document.documentElement.scrollWidth - window.innerWidth)';

/** Inputs without a label, buttons and links without text or aria-label, as HTML snippets. */
export const UNLABELLED_CONTROLS = `(() => {
  const problems = [];
  for (const element of document.querySelectorAll('input, select, textarea, button, a[href]')) {
    const hasAria = (element.getAttribute('aria-label') ?? '').trim() !== '' || element.hasAttribute('aria-labelledby');
    const hasLabel = element.labels !== undefined && element.labels !== null && element.labels.length > 0;
    const hasText = (element.textContent ?? '').trim() !== '';
    const isNamed = element.tagName === 'BUTTON' || element.tagName === 'A' ? hasText || hasAria : hasLabel || hasAria;
    if (!isNamed) problems.push(element.outerHTML.slice(0, 120));
  }
  return problems;
})()`;

export const BODY_BACKGROUND = 'getComputedStyle(document.body).backgroundColor';
export const THEME_ATTRIBUTE = 'document.documentElement.dataset.theme ?? null';
export const FOCUSED_TEXT = 'document.activeElement?.textContent ?? null';
export const IS_FOCUS_IN_MAIN =
  "document.activeElement?.closest('main') !== null && document.activeElement?.closest('main') !== undefined";
