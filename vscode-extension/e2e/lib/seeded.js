// Seeded randomness for the random-actions runs (the canvas in VS Code, the Hermes tab):
// the same seed gives the same actions, so a failing seed replays.
'use strict';

/** A small seeded generator (mulberry32): the same seed, the same numbers in [0, 1). */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed a run uses: HWF_E2E_SEED=<n>, `random` for a fresh one, else `fallback` (a gate must not change from run to run). */
function seedFromEnv(fallback) {
  return process.env.HWF_E2E_SEED === 'random' ? Date.now() % 100000 : Number(process.env.HWF_E2E_SEED || fallback);
}

/** A picker of action names by weight (`[[name, weight], ...]`) and of list items, both from `rand`. */
function chooser(rand, actions) {
  const total = actions.reduce((n, [, w]) => n + w, 0);
  return {
    pick: (list) => list[Math.floor(rand() * list.length)],
    nextAction: () => {
      let r = rand() * total;
      for (const [name, w] of actions) {
        if ((r -= w) < 0) return name;
      }
      return actions[0][0];
    },
  };
}

/**
 * A click on node `id` where it shows (a drag may have laid another node over part of it),
 * never on its buttons: the view fitted first when it is outside the pane, Re-layout when
 * other nodes cover all of it. `scope` is the page or the webview's frame.
 */
async function clickNode(scope, page, id) {
  const node = scope.locator(`.react-flow__node[data-id="${id}"]`);
  const spot = () => node.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const pane = document.querySelector('.react-flow__pane').getBoundingClientRect();
    for (let fy = 0.15; fy < 1; fy += 0.2) {
      for (let fx = 0.1; fx < 1; fx += 0.2) {
        const x = r.left + r.width * fx;
        const y = r.top + r.height * fy;
        // clear of the pane's edges (VS Code's sash between editor groups lies over the first pixels)
        if (x < pane.left + 12 || y < pane.top + 12 || x > pane.right - 12 || y > pane.bottom - 12) continue;
        const hit = document.elementFromPoint(x, y);
        if (hit && hit.closest('.react-flow__node') === el && !hit.closest('button, .react-flow__handle, .hwf-state-badge, input, textarea')) return { x: x - r.left, y: y - r.top };
      }
    }
    return null;
  }).catch(() => null);
  let at = await spot();
  if (!at) {
    await scope.locator('.react-flow__controls-fitview').click();
    await page.waitForTimeout(400);
    at = await spot();
  }
  if (!at) {
    await scope.locator('button.hwf-relayout').click();
    await page.waitForTimeout(400);
    await scope.locator('.react-flow__controls-fitview').click();
    await page.waitForTimeout(400);
    at = await spot();
  }
  await node.click({ position: at ?? undefined });
}

/** Node `id` selected, then dragged by its head by a random offset (up to ±100, ±60 px) drawn from `rand`; what the user did, in words. */
async function dragNode(scope, page, id, rand) {
  await clickNode(scope, page, id);
  const box = await scope.locator(`.react-flow__node[data-id="${id}"]`).locator('.hwf-node-head').boundingBox();
  const dx = Math.round((rand() - 0.5) * 200);
  const dy = Math.round((rand() - 0.5) * 120);
  await page.mouse.move(box.x + 6, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + 6 + dx, box.y + box.height / 2 + dy, { steps: 6 });
  await page.mouse.up();
  return `dragging ${id} by ${dx},${dy}`;
}

module.exports = { random, seedFromEnv, chooser, clickNode, dragNode };
