// Editing on the canvas, driven in code-server as a user would: ten edits of
// review-flow keep the untouched nodes where they were; the inspector edits each kind's
// fields; a node dragged from the palette lands where it was dropped; Ctrl+Z / Ctrl+Shift+Z
// in the canvas are the document's undo / redo; Export writes a PNG and an SVG; a window
// reload restores the canvas (and the positions); designs with ids `constructor`,
// `__proto__`, `toString` and a 3,000-node chain render.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { waitFor } = require('./lib/workbench');
const { drag } = require('./lib/click');

function canvasFrame(page) {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

/** Each drawn node's key → its position on the canvas (flow coordinates, not the screen's). */
async function positions(frame) {
  return frame.locator('.react-flow__node').evaluateAll((els) => Object.fromEntries(els.map((e) => {
    const m = /translate\(([-\d.]+)px,\s*([-\d.]+)px\)/.exec(e.style.transform);
    return [e.getAttribute('data-id'), m ? [Math.round(Number(m[1])), Math.round(Number(m[2]))] : null];
  })));
}

async function nodeCount(frame) {
  return frame.locator('.react-flow__node').count();
}

async function saveAndRead(wb, page, file) {
  await wb.focusText();
  await page.keyboard.press('Control+S');
  await page.waitForTimeout(500);
  return fs.readFileSync(file, 'utf8');
}

/** Back to the file's text on disk: the canvas's edits of this step undone. */
async function restore(wb, page, file, text) {
  fs.writeFileSync(file, text);
  await wb.focusText();
  await wb.runCommand('File: Revert File');
  await page.waitForTimeout(500);
}

/**
 * The canvas of `name` beside its text; `fit`: the whole graph in view (the first view is
 * readable rather than complete, issue 44, and the steps click nodes all over the graph).
 */
async function openCanvasOn(wb, page, name, { fit = true } = {}) {
  await wb.runCommand('View: Close All Editors');
  await wb.openFile(name);
  await wb.goTo(1, 1); // the lens is above the first line: it shows once the extension knows the design
  const lens = page.locator('.codelens-decoration a', { hasText: /open canvas/i }).first();
  await waitFor('an "Open canvas" code lens', () => lens.isVisible(), { timeout: 60000 });
  await wb.runCommand('Hermes Workflow: Open Canvas');
  await wb.runCommand('View: Close Primary Side Bar');
  if (fit) {
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    await waitFor('the canvas drawn', async () => (await frame.locator('.react-flow__node').count()) > 0, { timeout: 60000 });
    await page.waitForTimeout(300);
    await frame.locator('.react-flow__controls-fitview').click();
    await page.waitForTimeout(300);
  }
}

async function canvasEditingSteps({ step, world, wb, page, shot }) {
  const file = path.join(world.folder, 'review-flow.hwf.json');
  const original = fs.readFileSync(file, 'utf8');
  const frame = canvasFrame(page);
  const node = (id) => frame.locator(`.react-flow__node[data-id="${id}"]`);
  const ORIGINAL_IDS = ['start', 'draft', 'review', 'good-enough', 'sign-off', 'publish', 'how-it-works'];

  await step('canvas editing: ten edits of review-flow (text, palette, inspector, rename, undo/redo in the canvas) leave the untouched nodes where they were', async () => {
    await openCanvasOn(wb, page, 'review-flow.hwf.json');
    await waitFor('7 nodes', async () => (await nodeCount(frame)) === 7, { timeout: 60000 });
    await page.waitForTimeout(800);
    const before = await positions(frame);
    await wb.screenshot(shot('40-canvas2-before-edits'));
    const lines = original.split('\n');
    // 1-5: five keystrokes in draft's prompt
    const promptLine = lines.findIndex((l) => l.includes('"prompt": "Draft the release notes')) + 1;
    await wb.goTo(promptLine, 18);
    for (const ch of 'Now. ') {
      await page.keyboard.type(ch);
      await page.waitForTimeout(150);
    }
    // 6: an agent from the palette after publish
    await node('publish').locator('.hwf-node-title').click();
    await frame.locator('button.hwf-add[data-kind="agent"]').click();
    await waitFor('8 nodes', async () => (await nodeCount(frame)) === 8, { timeout: 15000 });
    // 7: draft's retries in the inspector
    await node('draft').locator('.hwf-node-title').click();
    await frame.locator('.hwf-side input[data-field="retries"]').fill('3');
    await frame.locator('.hwf-side button.hwf-save-field[data-field="retries"]').click();
    await waitFor('retries 3 in the text', async () => /"retries": 3/.test(await saveAndRead(wb, page, file)), { timeout: 15000 });
    // 8: rename the new node
    await node('agent1').locator('.hwf-node-title').click();
    await frame.locator('input.hwf-rename-input').fill('extra');
    await frame.locator('button.hwf-rename').click();
    await waitFor('the node renamed to extra', () => node('extra').isVisible(), { timeout: 15000 });
    const renamedAt = (await positions(frame)).extra;
    // 9: Ctrl+Z in the canvas: the rename is undone in the document
    await node('draft').locator('.hwf-node-title').click();
    await page.keyboard.press('Control+Z');
    await waitFor('agent1 again after Ctrl+Z in the canvas', () => node('agent1').isVisible(), { timeout: 15000 });
    const undoneText = await saveAndRead(wb, page, file);
    // 10: Ctrl+Shift+Z in the canvas: redone
    await node('draft').locator('.hwf-node-title').click();
    await page.keyboard.press('Control+Shift+Z');
    await waitFor('extra again after Ctrl+Shift+Z in the canvas', () => node('extra').isVisible(), { timeout: 15000 });
    await page.waitForTimeout(500);
    const after = await positions(frame);
    await wb.screenshot(shot('41-canvas2-after-ten-edits'));
    const moved = ORIGINAL_IDS.filter((id) => JSON.stringify(before[id]) !== JSON.stringify(after[id]));
    const text = await saveAndRead(wb, page, file);
    await restore(wb, page, file, original);
    if (moved.length) throw new Error(`moved: ${moved.map((id) => `${id} ${before[id]} → ${after[id]}`).join('; ')}`);
    if (!/"id": "agent1"/.test(undoneText)) throw new Error('Ctrl+Z in the canvas did not undo the rename');
    if (!/"id": "extra"/.test(text) || !/Now\. /.test(text)) throw new Error(`the edits are not all in the text:\n${text}`);
    const publish = after.publish;
    return `7 untouched nodes at the same spots; the new node at ${after.extra} (publish at ${publish}), kept through rename (${renamedAt}); Ctrl+Z / Ctrl+Shift+Z in the canvas undid and redid the rename`;
  });

  await step('canvas editing: the inspector edits each kind\'s fields (typed inputs), each one minimal text edit', async () => {
    await openCanvasOn(wb, page, 'review-flow.hwf.json');
    await waitFor('7 nodes', async () => (await nodeCount(frame)) === 7, { timeout: 60000 });
    const edits = [
      ['start', 'title', 'input', 'Branch cut!'],
      ['draft', 'timeout_minutes', 'input', '30'],
      ['review', 'model', 'input', 'big-model'],
      ['good-enough', 'expression', 'input', 'out.review.score >= 8'],
      ['sign-off', 'on_timeout', 'select', 'reject'],
      ['sign-off', 'options', 'textarea', 'approve\nreject\nlater'],
      ['publish', 'deliver', 'select', 'notification'],
      ['how-it-works', 'color', 'select', 'blue'],
    ];
    for (const [id, field, tag, value] of edits) {
      // the side form narrows the pane, which can leave a node outside it: fit the view first
      await frame.locator('.react-flow__controls-fitview').click();
      await page.waitForTimeout(400);
      await node(id).locator('.hwf-node-title').click();
      const input = frame.locator(`.hwf-side ${tag}[data-field="${field}"]`);
      await input.waitFor({ state: 'visible', timeout: 10000 });
      if (tag === 'select') await input.selectOption(value);
      else await input.fill(value);
      if (id === 'sign-off' && field === 'options') await wb.screenshot(shot('42-canvas2-inspector-approval'));
      if (tag !== 'select') await frame.locator(`.hwf-side button.hwf-save-field[data-field="${field}"]`).click(); // a choice saves at once
      await page.waitForTimeout(700);
    }
    const text = await saveAndRead(wb, page, file);
    const got = Object.fromEntries(JSON.parse(text).nodes.map((n) => [n.id, n]));
    const want = JSON.parse(original);
    const expected = Object.fromEntries(want.nodes.map((n) => [n.id, { ...n }]));
    expected.start.title = 'Branch cut!';
    expected.draft.timeout_minutes = 30;
    expected.review.model = 'big-model';
    expected['good-enough'].expression = 'out.review.score >= 8';
    expected['sign-off'].on_timeout = 'reject';
    expected['sign-off'].options = ['approve', 'reject', 'later'];
    expected.publish.deliver = 'notification';
    expected['how-it-works'].color = 'blue';
    // minimal: outside the new values, the text is the original (a new member adds one line)
    const kept = original.split('\n').filter((l) => text.includes(l)).length;
    await restore(wb, page, file, original);
    for (const id of Object.keys(expected)) {
      if (JSON.stringify(got[id]) !== JSON.stringify(expected[id])) throw new Error(`${id}: ${JSON.stringify(got[id])}`);
    }
    const total = original.split('\n').length;
    if (total - kept > 7) throw new Error(`${total - kept} original lines changed for 7 edited values`);
    return `${edits.length} fields set through the inspector (text, number, condition, enum, list); ${total - kept} of ${total} original lines changed (the edited values), every other field as it was`;
  });

  await step('canvas editing: a "condition" dragged from the palette lands where it was dropped', async () => {
    await openCanvasOn(wb, page, 'review-flow.hwf.json');
    await waitFor('7 nodes', async () => (await nodeCount(frame)) === 7, { timeout: 60000 });
    const pane = frame.locator('.react-flow__pane');
    const box = await pane.boundingBox();
    const target = { x: Math.round(box.width * 0.8), y: Math.round(box.height * 0.3) };
    await frame.locator('button.hwf-add[data-kind="condition"]').dragTo(pane, { targetPosition: target });
    await waitFor('8 nodes', async () => (await nodeCount(frame)) === 8, { timeout: 15000 });
    await page.waitForTimeout(500);
    const dropped = await node('condition1').boundingBox();
    await wb.screenshot(shot('43-canvas2-dropped-from-palette'));
    const text = await saveAndRead(wb, page, file);
    await restore(wb, page, file, original);
    const added = JSON.parse(text).nodes.find((n) => n.id === 'condition1');
    if (!added) throw new Error('no condition node in the text');
    const dx = Math.abs(dropped.x + dropped.width / 2 - (box.x + target.x));
    const dy = Math.abs(dropped.y - (box.y + target.y));
    if (dx > 60 || dy > 60) throw new Error(`dropped at ${box.x + target.x},${box.y + target.y}, drawn at ${dropped.x},${dropped.y}`);
    return `added ${JSON.stringify(added)}, drawn ${Math.round(dx)}/${Math.round(dy)} px from the drop point`;
  });

  await step('canvas editing: Export writes a PNG and an SVG of the graph', async () => {
    await openCanvasOn(wb, page, 'review-flow.hwf.json');
    await waitFor('7 nodes', async () => (await nodeCount(frame)) === 7, { timeout: 60000 });
    const written = {};
    for (const format of ['png', 'svg']) {
      const out = path.join(world.folder, `review-flow.${format}`);
      fs.rmSync(out, { force: true });
      await frame.locator(`button.hwf-export[data-format="${format}"]`).click();
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor({ state: 'visible', timeout: 10000 });
      // the dialog fills in its proposal a moment after it shows: typing before that gets merged into it
      await waitFor('the proposed file name', async () => (await input.inputValue()).endsWith(`review-flow.${format}`), { timeout: 10000 });
      if (format === 'png') await wb.screenshot(shot('44-canvas2-export-dialog'));
      await input.fill(out);
      await page.keyboard.press('Enter');
      await waitFor(`${out} written`, () => fs.existsSync(out) && fs.statSync(out).size > 0, { timeout: 15000 });
      written[format] = fs.readFileSync(out);
    }
    const png = written.png;
    const svg = written.svg.toString('utf8');
    if (png.subarray(1, 4).toString() !== 'PNG') throw new Error('the PNG is no PNG');
    const width = png.readUInt32BE(16);
    const height = png.readUInt32BE(20);
    const missing = ORIGINAL_IDS.filter((id) => !svg.includes(`data-id="${id}"`));
    if (missing.length) throw new Error(`the SVG lacks ${missing}`);
    const arrows = (svg.match(/marker-end/g) ?? []).length;
    if (arrows !== 7) throw new Error(`${arrows} arrows in the SVG`);
    fs.copyFileSync(path.join(world.folder, 'review-flow.png'), shot('45-canvas2-exported'));
    fs.copyFileSync(path.join(world.folder, 'review-flow.svg'), shot('45-canvas2-exported').replace(/png$/, 'svg'));
    for (const format of ['png', 'svg']) fs.rmSync(path.join(world.folder, `review-flow.${format}`)); // the explorer as the next steps expect it
    await page.waitForTimeout(1000);
    return `PNG ${width}×${height} (${png.length} bytes); SVG ${svg.length} characters, 7 nodes, 7 arrows`;
  });

  await step('canvas editing: a dragged node keeps its place through a window reload, which restores the canvas', async () => {
    await openCanvasOn(wb, page, 'review-flow.hwf.json');
    await waitFor('7 nodes', async () => (await nodeCount(frame)) === 7, { timeout: 60000 });
    await page.waitForTimeout(500);
    const title = node('how-it-works').locator('.hwf-node-title');
    const from = await title.boundingBox();
    await page.mouse.move(from.x + 10, from.y + 5);
    await page.mouse.down();
    await page.mouse.move(from.x + 60, from.y + 80, { steps: 10 });
    await page.mouse.move(from.x + 110, from.y + 160, { steps: 10 });
    await page.mouse.up();
    await page.waitForTimeout(1000); // the positions reach the workspace state
    const dragged = await positions(frame);
    await wb.runCommand('Developer: Reload Window');
    await page.waitForTimeout(2000);
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await waitFor('the canvas back with 7 nodes', async () => (await nodeCount(frame)) === 7, { timeout: 90000 });
    await page.waitForTimeout(800);
    const restored = await positions(frame);
    await wb.screenshot(shot('46-canvas2-restored-after-reload'));
    const tabs = await page.locator('.tabs-container .tab').allInnerTexts();
    const moved = ORIGINAL_IDS.filter((id) => JSON.stringify(dragged[id]) !== JSON.stringify(restored[id]));
    if (moved.length) throw new Error(`after the reload: ${moved.map((id) => `${id} ${dragged[id]} → ${restored[id]}`).join('; ')}`);
    return `how-it-works dragged to ${dragged['how-it-works']}; after the reload the canvas tab is back (${tabs.map((t) => t.trim()).join(' | ')}) with every node where it was`;
  });

  await step('canvas editing: connecting publish → draft is refused in words (a cycle), the text unchanged', async () => {
    await openCanvasOn(wb, page, 'review-flow.hwf.json');
    await waitFor('7 nodes', async () => (await nodeCount(frame)) === 7, { timeout: 60000 });
    await page.waitForTimeout(500);
    await drag(page, node('publish').locator('.react-flow__handle.source'), node('draft').locator('.react-flow__handle.target'), { x: 40, y: 0 });
    const notice = frame.locator('.hwf-notice');
    await waitFor('the notice', () => notice.isVisible(), { timeout: 15000 });
    const text = (await notice.innerText()).replace('×', '').trim();
    await wb.screenshot(shot('49-canvas2-cycle-refused'));
    await wb.runCommand('Notifications: Clear All Notifications');
    if (!/^Connecting publish → draft would make a cycle: /.test(text) || /arguments|hwf\.edit|uri/.test(text)) throw new Error(`the notice says: ${text}`);
    if (fs.readFileSync(file, 'utf8') !== original) throw new Error('the file changed');
    return `"${text}"`;
  });

  await step('canvas editing: the condition\'s expression completes from the server as it is typed: out. offers the upstream ids, the keyboard takes an id, a path of the newest run, an operator and a value; one minimal edit', async () => {
    const runFile = writeReviewRun(world, original);
    try {
      await openCanvasOn(wb, page, 'review-flow.hwf.json');
      await waitFor('7 nodes', async () => (await nodeCount(frame)) === 7, { timeout: 60000 });
      await node('good-enough').locator('.hwf-node-title').click();
      const input = frame.locator('.hwf-side input[data-field="expression"]');
      const list = frame.locator('.hwf-side [role="listbox"]');
      const labels = () => list.locator('[role="option"] .hwf-completion-label').allInnerTexts();
      const shows = (label) => waitFor(`the suggestion ${label}`, async () => (await list.isVisible()) && (await labels()).includes(label), { timeout: 15000 });
      /** Arrows to the option `label`, then accepts it with `key`. */
      const pick = async (label, key = 'Enter') => {
        const at = (await labels()).indexOf(label);
        for (let i = 0; i < at; i += 1) await page.keyboard.press('ArrowDown');
        const active = await list.locator('[role="option"][aria-selected="true"] .hwf-completion-label').innerText();
        if (active !== label) throw new Error(`the active option is ${active}, not ${label}`);
        await page.keyboard.press(key);
      };
      await input.click();
      await input.selectText(); // not Ctrl+A: a webview selects all a moment later, over what is typed meanwhile
      await page.keyboard.press('Backspace');
      await shows('out.review'); // an empty expression: out.<id> of the nodes it may read
      await page.keyboard.type('out.', { delay: 80 });
      await shows('draft');
      if (await input.inputValue() !== 'out.') throw new Error(`the input reads ${await input.inputValue()}`);
      const ids = await labels();
      if (ids[0] !== 'review') throw new Error(`after out. the first suggestion is ${ids[0]} (${ids.join(', ')}), not review, the parent`);
      if (await input.getAttribute('role') !== 'combobox' || await input.getAttribute('aria-expanded') !== 'true') throw new Error('the input is not an expanded combobox');
      await wb.screenshot(shot('50-canvas2-expression-ids'));
      await pick('review');
      await shows('score');
      const paths = await labels();
      await wb.screenshot(shot('51-canvas2-expression-paths'));
      await pick('score', 'Tab');
      await waitFor('the list closed on a whole path', async () => !(await list.isVisible()), { timeout: 10000 });
      await page.waitForTimeout(300); // a person's pause before the next key
      await page.keyboard.type(' ');
      await shows('>=').catch(async (error) => {
        // what the page shows, for a failure on a loaded machine to say more than a timeout
        const focused = await frame.locator('.hwf-canvas').evaluate(() => {
          const e = document.activeElement;
          return e ? `${e.tagName.toLowerCase()}${e.getAttribute('data-field') ? `[data-field=${e.getAttribute('data-field')}]` : ''}${e.className ? `.${String(e.className).split(' ').join('.')}` : ''}` : 'none';
        }).catch(() => '?');
        throw new Error(`${error.message}; the input reads "${await input.inputValue().catch(() => '?')}", the focus is on ${focused}, the list ${await list.isVisible() ? `shows ${(await labels()).join(', ')}` : 'is closed'}`);
      });
      await page.keyboard.press('Escape');
      await waitFor('Escape closes the list', async () => !(await list.isVisible()), { timeout: 10000 });
      await page.keyboard.press('Control+Space');
      await shows('>=');
      await pick('>=');
      await shows('8');
      await wb.screenshot(shot('52-canvas2-expression-value'));
      await pick('8');
      await waitFor('the list closed on a whole expression', async () => !(await list.isVisible()), { timeout: 10000 });
      const typed = await input.inputValue();
      await page.keyboard.press('Enter');
      const want = original.replace('"expression": "out.review.score >= 7"', '"expression": "out.review.score >= 8"');
      let text = '';
      await waitFor('the expression saved as one minimal edit', async () => (text = await saveAndRead(wb, page, file)) === want, { timeout: 15000 });
      await wb.screenshot(shot('53-canvas2-expression-saved'));
      await restore(wb, page, file, original);
      if (typed !== 'out.review.score >= 8') throw new Error(`the input reads ${typed}`);
      return `out. → ${ids.join(', ')}; Enter on review → ${paths.join(', ')} (run ${path.basename(runFile, '.json')}); Tab on score, space → operators, Escape closed them, Ctrl+Space opened them, Enter on >= → 8, Enter on 8; "${typed}" saved: the file differs from the original by that value only`;
    } finally {
      fs.rmSync(runFile, { force: true });
    }
  });

  await step('canvas editing: Remove takes an optional field out of the node as one minimal edit (required ones have no Remove); one Ctrl+Z in the canvas brings it back', async () => {
    await openCanvasOn(wb, page, 'review-flow.hwf.json');
    await waitFor('7 nodes', async () => (await nodeCount(frame)) === 7, { timeout: 60000 });
    await node('review').locator('.hwf-node-title').click();
    const side = frame.locator('.hwf-side');
    await side.waitFor({ state: 'visible', timeout: 10000 });
    const removable = await side.locator('button.hwf-remove-field').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    if (removable.some((l) => /prompt/.test(l))) throw new Error(`a required field has a Remove button: ${removable.join(', ')}`);
    const remove = side.getByRole('button', { name: 'Remove retries' });
    await remove.focus(); // from the keyboard
    await page.keyboard.press('Enter');
    const want = original.replace('      "retries": 2,\n', '');
    let text = '';
    await waitFor('retries gone from review, nothing else changed', async () => (text = await saveAndRead(wb, page, file)) === want, { timeout: 15000 });
    await node('review').locator('.hwf-node-title').click();
    await waitFor('the inspector without retries', async () => (await side.locator('button.hwf-remove-field[data-field="retries"]').count()) === 0, { timeout: 10000 });
    await wb.screenshot(shot('54-canvas2-field-removed'));
    await node('draft').locator('.hwf-node-title').click();
    await page.keyboard.press('Control+Z');
    let undone = '';
    await waitFor('retries back after one Ctrl+Z in the canvas', async () => (undone = await saveAndRead(wb, page, file)) === original, { timeout: 15000 });
    await restore(wb, page, file, original);
    return `optional fields with Remove on review: ${removable.join(', ')}; Remove retries (Enter on the focused button) removed exactly the line "retries": 2; one Ctrl+Z in the canvas restored the file byte for byte`;
  });

  await step('canvas editing: a dragged node\'s edges go around the other nodes, and keep their arrowheads', async () => {
    await openCanvasOn(wb, page, 'review-flow.hwf.json');
    await waitFor('7 nodes', async () => (await nodeCount(frame)) === 7, { timeout: 60000 });
    await frame.locator('button.hwf-relayout').click();
    await page.waitForTimeout(800);
    // sign-off to the right of every node, level with draft: its edge in comes from below, its edge out goes back down
    const boxesNow = async () => Object.fromEntries(await Promise.all(ORIGINAL_IDS.map(async (id) => [id, await node(id).boundingBox()])));
    const rightOf = (boxes) => Math.max(...Object.values(boxes).map((b) => b.x + b.width));
    let boxes = await boxesNow();
    const pane = await frame.locator('.hwf-flow').boundingBox();
    for (let i = 0; i < 4 && pane.x + pane.width - rightOf(boxes) < boxes.draft.width + 80; i += 1) {
      await frame.locator('.react-flow__controls-zoomout').click(); // room on the right
      await page.waitForTimeout(400);
      boxes = await boxesNow();
    }
    const grip = await node('sign-off').locator('.hwf-node-title').boundingBox();
    const from = { x: grip.x + 10, y: grip.y + 5 };
    const to = { x: rightOf(boxes) + 40 + (from.x - boxes['sign-off'].x), y: boxes.draft.y + (from.y - boxes['sign-off'].y) };
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 10 });
    await page.mouse.move(to.x, to.y, { steps: 10 });
    await page.mouse.up();
    await page.waitForTimeout(1000);
    const report = await frame.locator('.react-flow').evaluate(edgeGeometry);
    await wb.screenshot(shot('55-canvas2-dragged-node-edges'));
    await frame.locator('button.hwf-relayout').click(); // the next steps start from the layout
    await page.waitForTimeout(600);
    const moved = report.filter((e) => e.source === 'sign-off' || e.target === 'sign-off');
    if (moved.length !== 2) throw new Error(`sign-off's edges: ${JSON.stringify(moved)}`);
    const bad = moved.filter((e) => e.crossed.length || !e.arrow);
    if (bad.length) throw new Error(`edges crossing nodes or without an arrowhead: ${JSON.stringify(bad)}`);
    return moved.map((e) => `${e.source} → ${e.target}: ${e.samples} points sampled, none in another node's box; arrowhead ${e.arrow}`).join('; ');
  });

  await step('canvas editing: designs with ids constructor, __proto__, toString and a 3,000-node chain render', async () => {
    const hostile = {
      name: 'hostile',
      nodes: [
        { id: 'constructor', type: 'trigger', title: 'constructor' },
        { id: '__proto__', type: 'agent', prompt: 'first', after: ['constructor'] },
        { id: 'toString', type: 'agent', prompt: 'second', after: ['__proto__'] },
        { id: 'valueOf', type: 'output', deliver: 'notification', after: ['toString'] },
      ],
    };
    fs.writeFileSync(path.join(world.folder, 'hostile.hwf.json'), `${JSON.stringify(hostile, null, 2)}\n`);
    const nodes = [{ id: 'start', type: 'trigger' }];
    for (let i = 1; i < 3000; i += 1) nodes.push({ id: `s${i}`, type: 'agent', prompt: `Step ${i}`, after: [i === 1 ? 'start' : `s${i - 1}`] });
    fs.writeFileSync(path.join(world.folder, 'chain3000.hwf.json'), `${JSON.stringify({ name: 'chain3000', nodes })}\n`);
    await openCanvasOn(wb, page, 'hostile.hwf.json');
    await waitFor('4 nodes and 3 edges', async () => (await nodeCount(frame)) === 4 && (await frame.locator('.react-flow__edge').count()) === 3, { timeout: 60000 });
    const ids = await frame.locator('.hwf-node').evaluateAll((els) => els.map((e) => e.getAttribute('data-node-id')));
    await page.waitForTimeout(300);
    await wb.screenshot(shot('47-canvas2-hostile-ids'));
    const started = Date.now();
    await openCanvasOn(wb, page, 'chain3000.hwf.json');
    await waitFor('"3000 nodes" on the canvas', async () => /3000 nodes/.test(await frame.locator('.hwf-counts').innerText()) && (await nodeCount(frame)) > 0, { timeout: 120000 });
    const ms = Date.now() - started;
    await page.waitForTimeout(500);
    await wb.screenshot(shot('48-canvas2-chain-3000'));
    return `hostile ids drawn: ${ids.join(', ')}; the 3,000-node chain on screen ${(ms / 1000).toFixed(1)} s after Open Canvas (${await nodeCount(frame)} nodes in view rendered)`;
  });
}

/** A completed run of review-flow whose review output has a score (the paths completion offers), written as another process would. */
function writeReviewRun(world, designText) {
  const dir = path.join(world.hermesHome, 'workflow-runs');
  fs.mkdirSync(dir, { recursive: true });
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const runId = 'e2ec0de00001';
  const state = {
    run_id: runId, name: 'review-flow', status: 'completed', cursor: 5, design: JSON.parse(designText),
    outputs: { draft: 'notes', review: { verdict: 'approve', score: 8, issues: [] }, 'good-enough': true, 'sign-off': 'approve', publish: 'posted' },
    skipped: [], pending: null, error: null, answers: { 'sign-off': 'approve' }, deliveries: [], attempts: {},
    created_at: now, updated_at: now,
  };
  const file = path.join(dir, `${runId}.json`);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(state));
  fs.renameSync(`${file}.tmp`, file);
  return file;
}

/**
 * In the canvas's frame: each drawn edge, sampled every 4 px along its path (screen
 * coordinates), the samples inside another node's box (shrunk by 2 px: touching is not
 * crossing), and whether it ends in an arrowhead: a marker that exists, with the path's
 * last 16 px outside every node, ending on its target's top.
 */
function edgeGeometry(flow) {
  const shrink = (r) => ({ left: r.left + 2, right: r.right - 2, top: r.top + 2, bottom: r.bottom - 2 });
  const boxes = new Map([...flow.querySelectorAll('.react-flow__node')].map((n) => [n.getAttribute('data-id'), n.getBoundingClientRect()]));
  const inside = (p, r) => p.x > r.left && p.x < r.right && p.y > r.top && p.y < r.bottom;
  // flow coordinates → the frame's: the viewport's pan and zoom from where it is placed
  const viewport = flow.querySelector('.react-flow__viewport');
  const view = new DOMMatrixReadOnly(getComputedStyle(viewport).transform);
  const origin = viewport.parentElement.getBoundingClientRect();
  return [...flow.querySelectorAll('.react-flow__edge')].map((g) => {
    const [source, target] = JSON.parse(g.getAttribute('data-id') || g.id.replace(/^[^[]*/, '') || '[]');
    const pathEl = g.querySelector('path.react-flow__edge-path');
    const length = pathEl.getTotalLength();
    const at = (t) => {
      const p = pathEl.getPointAtLength(t);
      return { x: origin.left + view.e + view.a * p.x, y: origin.top + view.f + view.d * p.y };
    };
    const crossed = new Set();
    let samples = 0;
    for (let t = 0; t <= length; t += 4) {
      const p = at(t);
      samples += 1;
      for (const [id, r] of boxes) if (id !== source && id !== target && inside(p, shrink(r))) crossed.add(id);
    }
    const marker = (pathEl.getAttribute('marker-end') || '').match(/url\(['"]?#([^'")]+)/);
    const markerEl = marker ? flow.ownerDocument.getElementById(marker[1]) : null;
    let tailClear = true;
    for (let t = Math.max(0, length - 16); t <= length; t += 2) {
      const p = at(t);
      for (const r of boxes.values()) if (inside(p, shrink(r))) tailClear = false;
    }
    const end = at(length);
    const top = boxes.get(target);
    const onTop = top && Math.abs(end.y - top.top) < 10 && end.x > top.left && end.x < top.right;
    return { source, target, samples, crossed: [...crossed], arrow: markerEl && tailClear && onTop ? `${markerEl.tagName} ${marker[1]}, last 16 px clear, ends on ${target}'s top` : '' };
  });
}

module.exports = { canvasEditingSteps, canvasFrame, openCanvasOn, saveAndRead, restore };
