// The workflow debugger scenario of the e2e (issue 46): a breakpoint before `publish` set
// from the canvas, "Debug" on a copy of review-flow with the echo agent, the approval it
// parks at answered in the Debug Console, the stop before `publish` (the canvas marks the
// node), `review`'s output in the Variables view, edited there (setVariable), continue,
// and the run file: completed, `publish` got the edited value, the edit recorded. Then
// "Debug this case" on a design test case: the case's mocked agents, no agent called.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { waitFor } = require('./lib/workbench');
const { click } = require('./lib/click');
const { hermesLog } = require('./lib/workspace');

const DESIGN = 'debug-flow.hwf.json';
const EDITED = { verdict: 'approve', score: 9, issues: ['edited in the Variables view'] };
const CASE = 'a good draft, approved, is posted';

/** The canvas's document inside the webview's two iframes. */
function canvasFrame(page) {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

/** review-flow under another name (its runs apart from the other steps'), as it is in examples/. */
function writeDesign(repo, folder) {
  const design = JSON.parse(fs.readFileSync(path.join(repo, 'examples', 'review-flow.hwf.json'), 'utf8'));
  design.name = 'debug-flow';
  const text = `${JSON.stringify(design, null, 2)}\n`;
  fs.writeFileSync(path.join(folder, DESIGN), text);
  return text;
}

/** The Variables view's rows: [label, aria-expanded] (label: "name value"). */
async function variableRows(page) {
  return page.locator('.debug-pane .monaco-list-row, .pane-body.debug-variables .monaco-list-row, .debug-variables .monaco-list-row')
    .evaluateAll((els) => els.map((el) => ({ text: el.innerText.replace(/\s+/g, ' ').trim(), expanded: el.getAttribute('aria-expanded') })));
}

function variableRow(page, name) {
  return page.locator('.debug-variables .monaco-list-row', { has: page.locator('.monaco-tl-contents', { hasText: new RegExp(`^${name}\\b`) }) }).first();
}

/** Expands a row of the Variables view (by its first word) unless it is open. */
async function expandVariable(page, name) {
  const row = variableRow(page, name);
  await waitFor(`the variable row ${name}`, () => row.isVisible(), { timeout: 15000 });
  await waitFor(`${name} expanded`, async () => {
    if ((await row.getAttribute('aria-expanded')) === 'true') return true;
    await click(row.locator('.monaco-tl-twistie'), { timeout: 2000 });
    await page.waitForTimeout(300);
    return (await row.getAttribute('aria-expanded')) === 'true';
  }, { interval: 500, timeout: 15000 });
  return row;
}

/** How many debug adapters the extension has started (it logs each launch). */
function adaptersStarted(world) {
  return hermesLog(world.userDataDir).split('\n').filter((l) => l.includes('Debug adapter: ') && l.includes('debug-adapter in ')).length;
}

/**
 * Clicks a code lens that starts a debug session until an adapter starts: a lens clicked
 * just as VS Code replaces the lenses (a run changed) runs nothing.
 */
async function startFromLens(page, world, lens, what) {
  const before = adaptersStarted(world);
  await waitFor(what, async () => {
    await click(lens, { timeout: 10000 });
    return waitFor('a debug adapter', () => adaptersStarted(world) > before, { timeout: 5000 }).catch(() => false);
  }, { timeout: 45000, interval: 500 });
}

/** Runs that debug runs wrote (their `debug` key), newest last. */
function debugRuns(runFiles, hermesHome, name) {
  return runFiles(hermesHome).filter((r) => r.name === name && r.debug).sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)));
}

async function debuggerSteps({ step, repo, world, wb, page, shot, runFiles }) {
  const frame = canvasFrame(page);
  let designText = '';

  // publish's channel: examples/channels/print_channel.py appends what it is given to a log
  const channelLog = path.join(world.root, 'debug-channel.log');
  const settingsFile = path.join(world.folder, '.vscode', 'settings.json');
  const settingsBefore = fs.readFileSync(settingsFile, 'utf8');

  await step('debugger: a breakpoint toggled on the canvas\'s publish node shows in the editor\'s gutter', async () => {
    fs.writeFileSync(settingsFile, JSON.stringify({
      ...JSON.parse(settingsBefore),
      'hwf.delivery.command': ['env', `HWF_CHANNEL_LOG=${channelLog}`, 'python3', path.join(repo, 'examples', 'channels', 'print_channel.py')],
    }, null, 2));
    designText = writeDesign(repo, world.folder);
    await wb.runCommand('View: Close All Editors'); // another canvas open (an earlier step's) would be a second webview
    await wb.runCommand('Refresh Explorer'); // the file is new: the explorer lists it after a refresh
    await wb.openFile(DESIGN);
    const canvasLens = page.locator('.codelens-decoration a', { hasText: /open canvas/i }).first();
    await waitFor('the "Open canvas" lens', () => canvasLens.isVisible(), { timeout: 30000 });
    await click(canvasLens);
    const publish = frame.locator('.react-flow__node[data-id="publish"]');
    await waitFor('the canvas with publish', () => publish.isVisible(), { timeout: 60000 });
    await click(publish.locator('button.hwf-breakpoint'));
    await waitFor('the breakpoint on the canvas', async () => (await publish.locator('.hwf-has-breakpoint, button.hwf-breakpoint-on').count()) > 0);
    const line = designText.split('\n').findIndex((l) => l.includes('"id": "publish"')); // the `{` is the line above (1-based: this index)
    await wb.goTo(line, 1);
    const glyphs = page.locator('.editor-instance .monaco-editor .margin .codicon-debug-breakpoint');
    await waitFor('a breakpoint glyph in the gutter', async () => (await glyphs.count()) > 0, { timeout: 15000 });
    await page.waitForTimeout(500);
    await wb.screenshot(shot('70-debugger-breakpoint-from-canvas'));
    return `breakpoint on line ${line} (publish's object), ${await glyphs.count()} glyph(s) in the gutter`;
  });

  await step('debugger: "Debug" runs the design; parked at sign-off, answered in the Debug Console; stops before publish', async () => {
    const lens = page.locator('.codelens-decoration a', { hasText: /^\W*Debug$/ }).first();
    await wb.goTo(1, 1);
    // a lens clicked while the lenses refresh (a run changed) runs nothing: click until a session starts
    await startFromLens(page, world, lens, 'the "Debug" code lens');
    // the run parks at the approval: the Debug Console says how to answer
    await waitFor('the Debug Console', async () => {
      await wb.runCommand('Debug Console: Focus on Debug Console View');
      return page.locator('.repl').isVisible();
    }, { timeout: 60000 });
    await waitFor('the park at sign-off in the Debug Console', async () => /waiting for approval/.test(await page.locator('.repl').innerText()), { timeout: 60000 });
    await waitFor('sign-off marked stopped on the canvas', async () => (await frame.locator('.hwf-stopped').getAttribute('data-node-id').catch(() => null)) === 'sign-off', { timeout: 15000 });
    await wb.screenshot(shot('71-debugger-parked-at-approval'));
    const input = page.locator('.repl .repl-input-wrapper .monaco-editor');
    await click(input);
    await page.keyboard.type('answer approve');
    await page.keyboard.press('Enter');
    await waitFor('publish marked stopped on the canvas', async () => (await frame.locator('.hwf-stopped').getAttribute('data-node-id').catch(() => null)) === 'publish', { timeout: 60000 });
    await page.waitForTimeout(500);
    await wb.screenshot(shot('72-debugger-stopped-before-publish'));
    const repl = await page.locator('.repl').innerText();
    return `Debug Console: ${repl.split('\n').filter((l) => /debug run|waiting|answered|answer/.test(l)).slice(0, 4).join(' | ')}`;
  });

  await step('debugger: the Variables view shows review\'s output; set to a new value there; continue; publish delivers the edit', async () => {
    await wb.runCommand('View: Show Run and Debug');
    await expandVariable(page, 'Outputs');
    const review = await expandVariable(page, 'review');
    const shown = await waitFor('review\'s score in the Variables view', async () => {
      const rows = await variableRows(page);
      return rows.some((r) => /^score\s*[:=]?\s*8$/.test(r.text)) ? rows : false;
    }, { timeout: 15000 });
    await wb.screenshot(shot('73-debugger-variables-review'));
    await click(review, { button: 'right' });
    await wb.pickMenuItem('Set Value');
    const box = page.locator('.debug-variables .monaco-inputbox input');
    await waitFor('the value box', () => box.isVisible(), { timeout: 10000 });
    await box.fill(JSON.stringify(EDITED));
    await wb.screenshot(shot('74-debugger-set-value'));
    await page.keyboard.press('Enter');
    await waitFor('the edited score in the Variables view', async () => (await variableRows(page)).some((r) => /^score\s*[:=]?\s*9$/.test(r.text)), { timeout: 15000 });
    await wb.screenshot(shot('75-debugger-value-edited'));
    await wb.runCommand('Debug: Continue');
    const run = await waitFor('the debug run completed', () => debugRuns(runFiles, world.hermesHome, 'debug-flow').find((r) => r.status === 'completed'), { timeout: 60000 });
    await waitFor('the canvas without a stopped node', async () => (await frame.locator('.hwf-stopped').count()) === 0, { timeout: 15000 });
    await wb.screenshot(shot('76-debugger-run-completed'));
    fs.writeFileSync(settingsFile, settingsBefore);
    const delivered = run.outputs.publish?.review;
    if (JSON.stringify(delivered) !== JSON.stringify(EDITED)) {
      throw new Error(`publish collected review = ${JSON.stringify(delivered)}, not the edit ${JSON.stringify(EDITED)}`);
    }
    const posts = fs.existsSync(channelLog) ? fs.readFileSync(channelLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : [];
    const post = posts.find((p) => p.run_id === run.run_id && p.node_id === 'publish');
    if (!post || !post.text.includes(EDITED.issues[0]) || !/"score": ?9\b/.test(post.text)) {
      throw new Error(`the channel did not get the edited review: ${JSON.stringify(posts)}`);
    }
    const edits = run.debug.edits ?? [];
    if (edits.length !== 1 || edits[0].node !== 'review' || JSON.stringify(edits[0].new) !== JSON.stringify(EDITED)) {
      throw new Error(`the run does not record the edit: ${JSON.stringify(run.debug)}`);
    }
    const before = shown.filter((r) => /^(verdict|score|issues)/.test(r.text)).map((r) => r.text).join(', ');
    return `shown before: ${before}; run ${run.run_id} completed; publish delivered to ${post.target}: ${JSON.stringify(post.text.slice(0, 160))}…; edit recorded (old score ${edits[0].old?.score})`;
  });

  await step('debugger: "Debug this case" runs a design test case with its mocked agents (no agent called)', async () => {
    await wb.runCommand('View: Close All Editors');
    await wb.openFile('review-flow.hwf-test.json');
    await wb.goTo(1, 1);
    const lens = page.locator('.codelens-decoration a', { hasText: /Debug this case/ }).first();
    await waitFor('a "Debug this case" lens', () => lens.isVisible(), { timeout: 30000 });
    const lenses = await page.locator('.codelens-decoration a', { hasText: /Debug this case/ }).count();
    await wb.screenshot(shot('77-debugger-debug-this-case-lens'));
    await startFromLens(page, world, lens, 'the "Debug this case" lens');
    const run = await waitFor('the case\'s debug run completed', () => debugRuns(runFiles, world.hermesHome, 'review-flow')
      .find((r) => r.status === 'completed' && String(r.debug.testCase ?? '').endsWith(`#${CASE}`)), { timeout: 60000 });
    await wb.runCommand('Debug Console: Focus on Debug Console View');
    await waitFor('the run\'s end in the Debug Console', async () => /completed/.test(await page.locator('.repl').innerText()), { timeout: 15000 });
    await wb.screenshot(shot('78-debugger-case-completed'));
    const mocked = JSON.parse(fs.readFileSync(path.join(world.folder, 'review-flow.hwf-test.json'), 'utf8')).cases.find((c) => c.name === CASE);
    if (run.outputs.draft !== mocked.agents.draft.output || JSON.stringify(run.outputs.review) !== JSON.stringify(mocked.agents.review.structured)) {
      throw new Error(`the agents' outputs are not the case's mocks: ${JSON.stringify(run.outputs)}`);
    }
    if (JSON.stringify(run.outputs.publish) !== JSON.stringify(mocked.expect.outputs.publish)) {
      throw new Error(`publish: ${JSON.stringify(run.outputs.publish)}, the case expects ${JSON.stringify(mocked.expect.outputs.publish)}`);
    }
    return `${lenses} "Debug this case" lenses; run ${run.run_id} (${run.debug.testCase.split('/').pop()}) completed; ` +
      `draft = ${JSON.stringify(run.outputs.draft)} and review = ${JSON.stringify(run.outputs.review)} (the case's mocks, not the echo agent's); publish as the case expects`;
  });
}

module.exports = { debuggerSteps };
