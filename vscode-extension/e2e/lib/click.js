// The one way the e2e clicks (issue 33): a hover left by the last click (the activity
// bar's badge, "Hermes Workflow - 1 run waiting for you") can lie over what the next
// click aims at, and Playwright then waits its whole timeout for it to go. So before each
// try: move the mouse to a spot that shows no hover, let open hovers close (Escape when
// nothing Escape would dismiss is open), and check, without clicking, that the target is
// visible, enabled, stable and not covered (Playwright's `trial` click); then click.
// A try that fails is tried again after the hovers are dismissed again.
'use strict';

const HOVERS = '.workbench-hover-container:visible, .monaco-hover:not(.hidden):visible';
/** Escape closes these too: never press it while one is open (we may be clicking in it). */
const ESCAPE_CLOSES = '.monaco-dialog-box:visible, .context-view .monaco-menu:visible, .quick-input-widget:visible';
const TRY_MS = 2000;

/** The page a locator (maybe inside a webview frame) belongs to. */
function pageOf(locator) {
  return typeof locator.page === 'function' ? locator.page() : locator._frame.page();
}

/** Moves the mouse where no hover shows and waits (bounded) for open hovers to close. */
async function dismissHovers(page) {
  const size = page.viewportSize() ?? { width: 1280, height: 800 };
  // the right edge, halfway down: the editor's scrollbar, which has no hover
  await page.mouse.move(size.width - 2, Math.round(size.height / 2));
  const hovers = page.locator(HOVERS);
  const deadline = Date.now() + 1000;
  while ((await hovers.count()) > 0) {
    if (Date.now() > deadline) {
      if ((await page.locator(ESCAPE_CLOSES).count()) === 0) {
        await page.keyboard.press('Escape');
      }
      return;
    }
    await page.waitForTimeout(50);
  }
}

/**
 * Clicks `locator` once it is clickable (see the top of this file); `options` are
 * Playwright's click options, `timeout` the whole wait. Throws after it with the last reason.
 */
async function click(locator, { timeout = 30000, ...options } = {}) {
  const page = pageOf(locator);
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      await dismissHovers(page);
      await locator.click({ ...options, trial: true, timeout: TRY_MS });
      await locator.click({ ...options, timeout: TRY_MS });
      return;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeout} ms waiting to click ${locator}: ${last?.message ?? last}`);
    }
  }
}

module.exports = { click, dismissHovers, HOVERS };
