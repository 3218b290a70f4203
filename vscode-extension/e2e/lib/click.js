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

/**
 * Drags with the mouse from the middle of `from` to the middle of `to` (e.g. a React Flow
 * node's source handle to another's target handle), passing `aside` px off the straight
 * line halfway: React Flow starts a connection only on moves in between.
 */
async function drag(page, from, to, aside = { x: 0, y: 10 }) {
  const a = await from.boundingBox();
  const b = await to.boundingBox();
  if (!a || !b) {
    throw new Error('a handle to drag is not on screen');
  }
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2 + aside.x, (a.y + b.y) / 2 + aside.y, { steps: 8 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 8 });
  await page.mouse.up();
}

module.exports = { click, drag, dismissHovers, HOVERS };
