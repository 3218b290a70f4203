// The e2e's click helper against a stand-in page whose hover intercepts clicks until the
// mouse leaves, as the activity bar's badge hover did ("Send Response", "Cancel Run").
// Run: node --test vscode-extension/e2e/lib/ (make test-vscode does).
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { click } = require('./click');

/** A page with one hover that stays while the mouse rests on the activity bar. */
function standIn({ dialogOpen = false, hoverSticks = false } = {}) {
  const events = [];
  const state = { mouse: { x: 10, y: 100 }, hover: true };
  const onActivityBar = () => state.mouse.x < 50;
  const page = {
    viewportSize: () => ({ width: 1200, height: 800 }),
    mouse: {
      move: async (x, y) => {
        state.mouse = { x, y };
        events.push(`move ${x},${y}`);
        if (!onActivityBar() && !hoverSticks) {
          state.hover = false;
        }
      },
    },
    keyboard: {
      press: async (key) => {
        events.push(`press ${key}`);
        if (key === 'Escape') {
          state.hover = false;
        }
      },
    },
    waitForTimeout: async () => undefined,
    locator: (selector) => ({
      count: async () => {
        if (selector.includes('monaco-hover')) {
          return state.hover ? 1 : 0;
        }
        return dialogOpen && selector.includes('monaco-dialog-box') ? 1 : 0;
      },
    }),
  };
  const target = {
    page: () => page,
    toString: () => 'the Cancel Run button',
    click: async (options) => {
      if (state.hover) {
        events.push(options.trial ? 'trial refused' : 'click refused');
        throw new Error('<div class="monaco-hover"> intercepts pointer events');
      }
      events.push(options.trial ? 'trial' : `click ${options.button ?? 'left'}`);
    },
  };
  return { page, target, events };
}

test('a hover over the target is moved away from before the click', async () => {
  const { target, events } = standIn();
  await click(target, { button: 'right' });
  assert.deepStrictEqual(events, ['move 1198,400', 'trial', 'click right']);
});

test('a hover that stays is closed with Escape when no dialog is open', async () => {
  const { target, events } = standIn({ hoverSticks: true });
  await click(target);
  assert.deepStrictEqual(events, ['move 1198,400', 'press Escape', 'trial', 'click left']);
});

test('Escape is never pressed while a dialog is open; the click waits, then says why', async () => {
  const { target, events } = standIn({ hoverSticks: true, dialogOpen: true });
  await assert.rejects(click(target, { timeout: 10 }), /waiting to click the Cancel Run button: .*intercepts pointer events/);
  assert.ok(!events.includes('press Escape'));
  assert.ok(!events.some((e) => e.startsWith('click ')));
});
