#!/usr/bin/env node
// Retakes the images of the extension's README (vscode-extension/images/*.png) in real
// VS Code (code-server, headless Chromium), the way the e2e test drives it: the .vsix
// installed, a clean demo workspace holding only the example designs, the echo agent.
// Each PNG is then made small (pngquant, then optipng, when installed). `make screenshots`.
//
//   node screenshots.js [--repo DIR] [--vsix FILE] [--code-server DIR] [--python PY] [--out DIR]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { installExtension } = require('./lib/codeServer');
const { option, commonOptions } = require('./lib/options');
const { openSession } = require('./lib/session');
const { prepareDemoWorkspace } = require('./lib/workspace');
const { waitFor } = require('./lib/workbench');
const { click } = require('./lib/click');

const { repo, vsix, codeServerDir, python } = commonOptions();
const out = path.resolve(option('out', path.join(repo, 'vscode-extension', 'images')));

/** Shrinks a PNG in place: 256-colour quantisation (pngquant), then lossless (optipng). */
function optimise(file) {
  const before = fs.statSync(file).size;
  spawnSync('pngquant', ['--force', '--skip-if-larger', '--strip', '--speed', '1', '--quality', '70-95', '--output', file, file]);
  spawnSync('optipng', ['-quiet', '-o2', '-strip', 'all', file]);
  return `${path.relative(repo, file)}: ${(fs.statSync(file).size / 1024).toFixed(0)} KB (from ${(before / 1024).toFixed(0)} KB)`;
}

async function shoot(wb, name) {
  const file = path.join(out, `${name}.png`);
  await wb.screenshot(file);
  console.log(optimise(file));
}

/** 1-based line of the first line of `file` (in the workspace) that contains `needle`. */
function lineOf(world, file, needle) {
  return fs.readFileSync(path.join(world.folder, file), 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;
}

/** Squiggles in the editor, the Problems panel under it: broken.hwf.json, side bar hidden. */
async function problems(wb, page) {
  await wb.openFile('broken.hwf.json');
  await page.keyboard.press('Control+B');
  await page.keyboard.press('Control+Shift+M');
  await waitFor('the hwf problems', async () => (await wb.problems()).filter((p) => p.source === 'hwf').length >= 17,
    { timeout: 60000, interval: 1000 });
  await page.locator('.markers-panel .monaco-list').first().hover();
  for (let i = 0; i < 20; i += 1) {
    await page.mouse.wheel(0, -400);  // wb.problems() scrolled to the end
  }
  await page.mouse.move(20, 500);  // no tooltip
  await page.waitForTimeout(800);
  await shoot(wb, 'problems');
  await page.keyboard.press('Control+B');
}

/** Completion of a node's type, the Explorer showing the demo workspace. */
async function completion(wb, page, world) {
  await wb.runCommand('View: Hide Panel');
  await wb.runCommand('View: Close All Editors');
  await wb.openFile('hello-world.hwf.json');
  const line = lineOf(world, 'hello-world.hwf.json', '"type": "agent"');
  const column = fs.readFileSync(path.join(world.folder, 'hello-world.hwf.json'), 'utf8').split('\n')[line - 1].indexOf('agent') + 1;
  await wb.goTo(line, column);
  await page.keyboard.press('Shift+End');
  await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.press('Delete');
  await waitFor('the completion list', async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Space');
    const widget = page.locator('.suggest-widget.visible');
    await widget.waitFor({ state: 'visible', timeout: 5000 });
    await page.waitForTimeout(300);
    return (await widget.innerText()).includes('approval');
  }, { timeout: 30000, interval: 1000 });
  await shoot(wb, 'completion');
  await page.keyboard.press('Escape');
  await wb.runCommand('File: Revert File');
  await waitFor('hello-world.hwf.json reverted', async () =>
    (await page.locator('.tabs-container .tab.dirty').count()) === 0);
}

/** An approval run: the ⏸ waiting hint and the quick pick of its options, then answered. */
async function approval(wb, page, world) {
  await wb.runCommand('View: Close All Editors');
  await wb.openFile('review-flow.hwf.json');
  await wb.runCommand('Hermes Workflow: Start Run');
  await wb.waitForRun('review-flow', 'awaiting approval', 60000);
  await wb.runCommand('Notifications: Clear All Notifications');
  await wb.goTo(lineOf(world, 'review-flow.hwf.json', '"id": "sign-off"'), 1);
  const answer = page.locator('.codelens-decoration a', { hasText: /^Answer/ }).first();
  await waitFor('an "Answer…" code lens', () => answer.isVisible(), { timeout: 30000 });
  await waitFor('the ⏸ waiting hint', async () => /waiting/.test(await page.locator('.editor-instance').first().innerText()));
  await click(answer);
  await waitFor('the approval options in a quick pick', async () => (await wb.quickPickRows()).some((r) => r.includes('approve')));
  await page.waitForTimeout(300);
  await shoot(wb, 'approval');
  await wb.pickQuickItem('approve');
}

/** The Runs view after the approved run, the design with its lenses and done hints. */
async function runsView(wb, page, world) {
  const row = await wb.waitForRun('review-flow', 'completed', 60000);
  await wb.expandRun(row);
  await waitFor('the answered approval among the steps', async () => /answered approve/.test(await wb.runsViewText()));
  await click(page.locator('.editor-instance .monaco-editor .view-lines').first());
  await wb.goTo(lineOf(world, 'review-flow.hwf.json', '"on_timeout"'), 1);
  await waitFor('the refreshed lenses (no "Answer…")', async () =>
    (await page.locator('.codelens-decoration a', { hasText: /^Answer/ }).count()) === 0);
  await wb.runCommand('Notifications: Clear All Notifications');
  await page.waitForTimeout(500);
  await shoot(wb, 'runs-view');
}

async function main() {
  fs.mkdirSync(out, { recursive: true });
  const world = prepareDemoWorkspace({ repo, python });
  installExtension({ dir: codeServerDir, extensionsDir: world.extensionsDir, userDataDir: world.userDataDir, vsix });
  const { wb, page, close } = await openSession({ codeServerDir, world, userDataDir: world.userDataDir });
  let failed = false;
  try {
    for (const take of [problems, completion, approval, runsView]) {
      await take(wb, page, world);
    }
  } catch (error) {
    failed = true;
    const file = path.join(repo, 'artifacts', 'screenshots-FAILED.png');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    await page.screenshot({ path: file }).catch(() => undefined);
    console.error(`${error.stack || error}\n(the page when it failed: ${path.relative(repo, file)}; workspace ${world.root})`);
  } finally {
    await close();
  }
  if (!failed) {
    fs.rmSync(world.root, { recursive: true, force: true });
  }
  return failed ? 1 : 0;
}

main().then((code) => process.exit(code), (error) => {
  console.error(error);
  process.exit(1);
});
