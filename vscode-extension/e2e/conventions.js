// VS Code's conventions (issue 47), in real VS Code: a design is a language of its own
// (one formatter, no prompt, an ordinary JSON file untouched), a rename reaches the design
// test files, a parked step's time is the time it ran, a failing design test says what it
// means inline and in the Test Results output. Steps are named "conventions: …".
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { waitFor } = require('./lib/workbench');

const DESIGN = 'conv-flow.hwf.json';
const TESTS = 'conv-flow.hwf-test.json';
const PLAIN = 'plain-data.json';

function writeFiles(folder) {
  const design = {
    name: 'conv-flow',
    nodes: [
      { id: 'start', type: 'trigger' },
      { id: 'review', type: 'agent', prompt: 'Review the draft', after: ['start'] },
      { id: 'ok', type: 'condition', expression: 'out.review.score >= 7', after: ['review'] },
      { id: 'sign-off', type: 'approval', question: 'Ship it?', after: ['ok'] },
      { id: 'publish', type: 'output', after: ['sign-off'] },
    ],
  };
  const tests = {
    design: DESIGN,
    cases: [
      {
        name: 'approved',
        agents: { review: { structured: { score: 8 } } },
        answers: { 'sign-off': 'approve' },
        expect: { status: 'completed', steps: { review: 'done', ok: 'done', 'sign-off': 'answered', publish: 'done' } },
      },
      {
        name: 'wrong on purpose: says failed',
        agents: { review: { structured: { score: 8 } } },
        answers: { 'sign-off': 'approve' },
        expect: { status: 'failed' },
      },
    ],
  };
  fs.writeFileSync(path.join(folder, DESIGN), `${JSON.stringify(design, null, 2)}\n`);
  fs.writeFileSync(path.join(folder, TESTS), `${JSON.stringify(tests, null, 2)}\n`);
  // an ordinary JSON file, badly laid out: Format Document must be VS Code's own, no prompt
  fs.writeFileSync(path.join(folder, PLAIN), '{"a":1,\n      "b":[1,2]}\n');
}

/** `hwf …`'s output; a run that parks exits 3, which is no failure here. */
function hwf(repo, args, env) {
  const done = spawnSync(path.join(repo, '.venv', 'bin', 'hwf'), args, { encoding: 'utf8', env });
  if (done.status !== 0 && done.status !== 3) {
    throw new Error(`hwf ${args.join(' ')} exited ${done.status}: ${done.stderr}`);
  }
  return done.stdout;
}

/** The server answers for the open design: its code lenses are drawn. */
async function serverReady(page) {
  // the server's lenses (Start run, Run from here), not the extension's own Open canvas
  await waitFor('the server\'s code lenses', async () =>
    /Start run|Run from here/.test((await page.locator('.editor-instance .monaco-editor .codelens-decoration').allInnerTexts()).join(' ')),
  { timeout: 60000, interval: 500 });
}

async function closeDialogs(page) {
  for (let i = 0; i < 3 && (await page.locator('.monaco-dialog-box').count()); i++) {
    await page.keyboard.press('Escape');
    await page.waitForTimeout(300);
  }
}

async function formatWithoutPrompt(wb, page, { jsonStarting = false } = {}) {
  // VS Code's own JSON server starts late on a loaded machine: until then it says it has no
  // formatter for 'json' (no choice offered). Only that is waited out, never a choice.
  for (let attempt = 0; jsonStarting && attempt < 5; attempt++) {
    await wb.runCommand('Format Document');
    await page.waitForTimeout(1500);
    const dialog = (await page.locator('.monaco-dialog-box').allInnerTexts()).join(' ');
    if (!/no formatter for 'json'/.test(dialog)) {
      break;
    }
    await closeDialogs(page);
    await page.waitForTimeout(3000);
  }
  await wb.runCommand('Format Document');
  await page.waitForTimeout(1500);
  const prompt = await page.locator('.notifications-toasts .notification-toast', { hasText: /formatter/i }).count();
  const picker = await page.locator('.quick-input-widget:visible', { hasText: /formatter/i }).count();
  const dialog = await page.locator('.monaco-dialog-box').allInnerTexts();
  if (prompt || picker || dialog.length) {
    await closeDialogs(page);
    throw new Error(`a formatter prompt appeared (toast ${prompt}, picker ${picker}, dialog ${dialog.join(' ')})`);
  }
}

async function languageMode(page) {
  return page.locator('.part.statusbar #status\\.editor\\.mode').innerText().catch(() => '');
}

async function conventionSteps({ step, repo, world, wb, page, shot }) {
  writeFiles(world.folder);
  // written after the window opened: the explorer's refresh action when its watcher is slow
  await wb.runCommand('View: Show Explorer');
  await waitFor('the new files in the explorer', async () => {
    if (await page.locator('.explorer-folders-view .monaco-list-row', { hasText: DESIGN }).first().isVisible()) {
      return true;
    }
    await page.locator('.part.sidebar [aria-label^="Refresh Explorer"]').first().click({ force: true, timeout: 2000 }).catch(() => undefined);
    return false;
  }, { timeout: 60000, interval: 2000 });

  await step('conventions: a design is Hermes Workflow: one formatter, no prompt, one outline in the breadcrumb; plain JSON stays JSON', async () => {
    await wb.openFile(DESIGN);
    const mode = await waitFor('the design\'s language in the status bar', async () => {
      const shown = await languageMode(page);
      return /Hermes Workflow/.test(shown) ? shown : false;
    }, { timeout: 30000 });
    await serverReady(page);
    await formatWithoutPrompt(wb, page);
    await wb.goTo(5, 14);
    const crumbs = await waitFor('the breadcrumb down to the node', async () => {
      const items = await page.locator('.breadcrumbs-control .monaco-breadcrumb-item').allInnerTexts();
      return items.some((t) => /start/.test(t)) ? items : false;
    }, { timeout: 30000 });
    if (crumbs.some((t) => /JSON Language Features|Hermes Workflow$/.test(t))) {
      throw new Error(`the breadcrumb names a provider: ${crumbs.join(' › ')}`);
    }
    await wb.screenshot(shot('70-conventions-design-language'));
    await wb.openFile(PLAIN);
    const plainMode = await waitFor('JSON in the status bar', async () => {
      const shown = await languageMode(page);
      return /^JSON$/m.test(shown.trim()) ? shown.trim() : false;
    }, { timeout: 15000 });
    await formatWithoutPrompt(wb, page, { jsonStarting: true });
    await wb.runCommand('File: Save');
    const formatted = await waitFor('the plain file formatted by VS Code, saved', async () => {
      const text = fs.readFileSync(path.join(world.folder, PLAIN), 'utf8');
      return text.includes('"b": [') ? JSON.stringify(text) : false;
    }, { timeout: 10000 });
    const settings = path.join(world.userDataDir, 'User', 'settings.json');
    const userSettings = fs.existsSync(settings) ? fs.readFileSync(settings, 'utf8') : '';
    if (/defaultFormatter/.test(userSettings)) {
      throw new Error(`a default formatter was written to the user's settings: ${userSettings}`);
    }
    await wb.screenshot(shot('71-conventions-plain-json'));
    return `design: "${mode.trim()}", formatted without a prompt; breadcrumb ${crumbs.join(' › ')}; ${PLAIN}: "${plainMode}", formatted (${formatted}), no [json] defaultFormatter in the user's settings`;
  });

  await step('conventions: renaming a node updates its design test file; references list it', async () => {
    await closeDialogs(page);
    await wb.openFile(DESIGN);
    await serverReady(page);
    const lines = fs.readFileSync(path.join(world.folder, DESIGN), 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes('"id": "review"')) + 1;
    await wb.goTo(line, lines[line - 1].indexOf('review') + 3);
    await page.keyboard.press('Shift+F12');
    const refs = await waitFor('the references peek with the test file', async () => {
      const text = await page.locator('.monaco-editor .peekview-widget').first().innerText().catch(() => '');
      return text.includes(TESTS) ? text : false;
    }, { timeout: 30000 });
    await wb.screenshot(shot('72-conventions-references-in-test-file'));
    await page.keyboard.press('Escape');
    await page.keyboard.press('F2');
    const input = page.locator('.rename-box input, .rename-input').first();
    await input.waitFor({ state: 'visible', timeout: 15000 });
    await input.fill('critique');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(1500);
    await wb.runCommand('File: Save All');
    const testText = await waitFor('the test file renamed on disk', async () => {
      const text = fs.readFileSync(path.join(world.folder, TESTS), 'utf8');
      return !/"review"/.test(text) && /"critique"/.test(text) ? text : false;
    }, { timeout: 20000 });
    await wb.openFile(TESTS);
    await page.waitForTimeout(2000);
    await wb.runCommand('Problems: Focus on Problems View');
    // no problem at all: no list to read; a failing case's expectation (the test file keeps
    // one wrong on purpose) is no rename problem
    const unknown = (await wb.problems().catch(() => [])).filter((p) => /unknown node|critique|review/.test(p.message));
    await wb.screenshot(shot('73-conventions-renamed-test-file'));
    if (unknown.length) {
      throw new Error(`problems after the rename: ${unknown.map((p) => p.message).join('; ')}`);
    }
    return `references: ${refs.split('\n').filter((l) => /hwf/.test(l)).slice(0, 3).join(' | ')}; ` +
      `${TESTS} now names "critique" ${testText.split('"critique"').length - 1} times, no problem`;
  });

  await step('conventions: a parked step shows the time it ran and its wait as waiting, in local time', async () => {
    const env = { ...process.env, HERMES_HOME: world.hermesHome, HWF_AGENT_COMMAND: '' };
    const out = hwf(repo, ['run', path.join(world.folder, DESIGN), '--hermes-home', world.hermesHome], env);
    const runId = /run ([a-f0-9]+) of conv-flow/.exec(out)?.[1];
    if (!runId) {
      throw new Error(`no run id in:\n${out}`);
    }
    await page.waitForTimeout(3000); // the agent step sits parked
    hwf(repo, ['respond', runId, '--structured', '{"score": 9}', '--hermes-home', world.hermesHome], env);
    const row = await wb.waitForRun('conv-flow', 'awaiting approval', 30000, runId).catch(() => wb.waitForRun('conv-flow', 'waiting', 30000, runId));
    await wb.expandRun(row);
    const text = await waitFor('the steps with their times', async () => {
      const shown = await wb.runsViewText();
      return /critique/.test(shown) && /sign-off/.test(shown) ? shown : false;
    }, { timeout: 20000 });
    await wb.screenshot(shot('74-conventions-times-people-read'));
    const critique = text.split('\n').find((l) => /critique/.test(l) && /done/.test(l)) ?? '';
    const signOff = text.split('\n').find((l) => /sign-off/.test(l)) ?? '';
    if (/\(\d+ s\)|min/.test(critique) || !/done \(0\.\d\d s\)/.test(text)) {
      throw new Error(`the parked step's time includes its wait: ${critique || text}`);
    }
    if (/waiting.*waiting/.test(signOff) || /\d{4}-\d\d-\d\dT/.test(text)) {
      throw new Error(`repeated words or raw UTC stamps: ${signOff}`);
    }
    return `${runId}: ${critique.trim()} | ${signOff.trim()}`;
  });

  await step('conventions: a failing design test says expected and got, inline and in the Test Results output', async () => {
    await wb.openFile(TESTS);
    await wb.runCommand('Test: Run Tests in Current File');
    const testLines = fs.readFileSync(path.join(world.folder, TESTS), 'utf8').split('\n');
    await page.waitForTimeout(3000);
    await wb.goTo(testLines.findIndex((l) => l.includes('"status": "failed"')) + 1, 1);
    const seen = () => page.evaluate(() => [...document.querySelectorAll('[class*="test-message"], [class*="inline"]')]
      .map((e) => `${e.className}=${(e.textContent || '').slice(0, 60)}`).slice(0, 12).join(' | '));
    const inline = await waitFor('the failure inline in the editor', async () => {
      // injected text, spaces drawn as no-break spaces
      // the words are CSS content of a decoration (::after/::before), or injected text
      const texts = await page.evaluate(() => [...document.querySelectorAll('.editor-instance .monaco-editor *')]
        .flatMap((e) => [getComputedStyle(e, '::after').content, getComputedStyle(e, '::before').content, e.children.length ? '' : e.textContent])
        .map((t) => (t || '').replace(/\u00a0/g, ' ').replace(/\\'/g, "'"))
        .filter((t) => /expected|!=/.test(t)));
      return texts.find((t) => /expected 'failed', got 'completed'/.test(t)) ?? false;
    }, { timeout: 60000, interval: 1000 }).catch(async (error) => {
      throw new Error(`${error.message}; in the page: ${await seen()}`);
    });
    await wb.screenshot(shot('75-conventions-design-test-inline'));
    await wb.runCommand('Test: Show Output');
    const output = await waitFor('the Test Results output', async () => {
      const shown = await page.locator('.part.panel').innerText().catch(() => '');
      return /expected 'failed', got 'completed'/.test(shown) && /passed/.test(shown) ? shown : false;
    }, { timeout: 30000 });
    await wb.screenshot(shot('76-conventions-design-test-output'));
    if (/completed != failed|failed != completed/.test(inline)) {
      throw new Error(`the inline text is the diff's: ${inline}`);
    }
    return `inline: "${inline.trim()}"; output: ${output.split('\n').filter((l) => /passed|✗|✓|expected/.test(l)).slice(0, 4).join(' | ')}`;
  });
}

module.exports = { conventionSteps };
