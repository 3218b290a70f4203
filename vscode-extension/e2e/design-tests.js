// The design tests scenario of the e2e (issue 32): the examples' *.hwf-test.json files in
// VS Code's Test Explorer, run from there through the bundled server, with one copy whose
// expectation is wrong on purpose: its case fails, with its difference at its place.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { waitFor } = require('./lib/workbench');
const { click } = require('./lib/click');
const { hermesLog } = require('./lib/workspace');

const WRONG_FILE = 'review-flow-wrong.hwf-test.json';
const WRONG_CASE = 'the sign-off waits (wrong on purpose: it says answered)';

/**
 * A copy of review-flow's tests with two cases: one as written (passes), one whose
 * `sign-off` step is expected `answered` where the run leaves it `waiting`.
 */
function writeWrongCopy(folder) {
  const source = JSON.parse(fs.readFileSync(path.join(folder, 'review-flow.hwf-test.json'), 'utf8'));
  const waits = source.cases.find((c) => c.expect?.steps?.['sign-off'] === 'waiting');
  const skips = source.cases.find((c) => c.expect?.steps?.['sign-off'] === 'skipped');
  const wrong = { ...waits, name: WRONG_CASE, expect: { ...waits.expect, steps: { ...waits.expect.steps, 'sign-off': 'answered' } } };
  const copy = { design: source.design, cases: [skips, wrong] };
  const text = `${JSON.stringify(copy, null, 2)}\n`;
  fs.writeFileSync(path.join(folder, WRONG_FILE), text);
  return text;
}

/** The expected counts of the examples' test files, read from the files themselves. */
function exampleCases(folder) {
  return fs.readdirSync(folder).filter((f) => f.endsWith('.hwf-test.json') && f !== WRONG_FILE)
    .map((f) => ({ file: f, cases: JSON.parse(fs.readFileSync(path.join(folder, f), 'utf8')).cases.length }));
}

/** The rows of the Test Explorer: their accessible labels. */
async function explorerRows(page) {
  return page.locator('.part.sidebar .monaco-list-row').evaluateAll((els) => els.map((el) => el.getAttribute('aria-label') ?? el.innerText));
}

/** "design tests: <file>: N passed, M failed" lines the extension logged, newest last. */
function loggedResults(world) {
  return hermesLog(world.userDataDir).split('\n').map((l) => /design tests: (\S+): (\d+) passed, (\d+) failed/.exec(l))
    .filter(Boolean).map((m) => ({ file: m[1], passed: Number(m[2]), failed: Number(m[3]) }));
}

/** The Testing side bar (its activity bar icon, the flask), unless it is showing. */
async function showTestExplorer(page) {
  const title = page.locator('.part.sidebar .composite.title');
  if (/testing/i.test(await title.innerText().catch(() => ''))) {
    return;
  }
  await click(page.locator('.part.activitybar .action-item:has(a[aria-label^="Testing"])').first());
  await waitFor('the Testing side bar', async () => /testing/i.test(await title.innerText()));
}

async function designTestSteps({ step, world, wb, page, shot }) {
  const examples = exampleCases(world.folder);
  const wrongText = writeWrongCopy(world.folder);

  await step('design tests: the Test Explorer lists each test file and its cases', async () => {
    await showTestExplorer(page);
    const files = [...examples.map((e) => e.file), WRONG_FILE];
    const rows = await waitFor('a row per test file', async () => {
      const shown = await explorerRows(page);
      return files.every((f) => shown.some((r) => r.includes(f))) ? shown : false;
    }, { timeout: 60000, interval: 1000 });
    const fileRow = page.locator('.part.sidebar .monaco-list-row', { hasText: WRONG_FILE }).first();
    if ((await fileRow.getAttribute('aria-expanded')) !== 'true') {
      await click(fileRow.locator('.monaco-tl-twistie'));
    }
    await waitFor('the wrong copy\'s cases under it', async () => (await explorerRows(page)).some((r) => r.includes(WRONG_CASE)));
    await wb.screenshot(shot('60-design-tests-explorer'));
    return `${rows.length} rows; files: ${files.join(', ')} (${examples.map((e) => `${e.file}: ${e.cases} cases`).join('; ')})`;
  });

  await step('design tests: Run All Tests: the examples pass, the wrong copy fails at its case with expected vs actual', async () => {
    const before = loggedResults(world).length;
    await wb.runCommand('Test: Run All Tests');
    const results = await waitFor('a result per test file in the log', async () => {
      const fresh = loggedResults(world).slice(before);
      return fresh.length >= examples.length + 1 ? fresh : false;
    }, { timeout: 90000, interval: 1000 });
    for (const example of examples) {
      const got = results.find((r) => r.file === example.file);
      if (!got || got.passed !== example.cases || got.failed !== 0) {
        throw new Error(`${example.file}: expected ${example.cases} passed, 0 failed; logged ${JSON.stringify(got)}`);
      }
    }
    const wrong = results.find((r) => r.file === WRONG_FILE);
    if (!wrong || wrong.passed !== 1 || wrong.failed !== 1) {
      throw new Error(`${WRONG_FILE}: expected 1 passed, 1 failed; logged ${JSON.stringify(wrong)}`);
    }
    await showTestExplorer(page);
    const failedRow = await waitFor('the failed case marked in the Test Explorer', async () =>
      (await explorerRows(page)).find((r) => r.includes(WRONG_CASE) && /fail/i.test(r)), { timeout: 30000 });
    await wb.screenshot(shot('61-design-tests-explorer-after-run'));
    // the editor: the failed case's gutter icon on its first line
    await wb.openFile(WRONG_FILE);
    const lines = wrongText.split('\n');
    await wb.goTo(lines.findIndex((l) => l.includes(WRONG_CASE)) + 1, 1); // the icon: on the line above
    const glyphs = page.locator('.editor-instance .monaco-editor .margin .testing-run-glyph');
    const icons = await waitFor('a failed icon in the gutter', async () => {
      const classes = await glyphs.evaluateAll((els) => els.map((e) => e.className));
      return classes.some((c) => c.includes('testing-failed-icon')) ? classes : false;
    }, { timeout: 30000 });
    await wb.screenshot(shot('62-design-tests-gutter-failed'));
    return `${results.map((r) => `${r.file}: ${r.passed} passed, ${r.failed} failed`).join('; ')}; explorer row "${failedRow}"; ` +
      `gutter of ${WRONG_FILE}: ${icons.map((c) => /testing-(\w+)-icon/.exec(c)?.[1] ?? c).join(', ')}`;
  });

  await step('design tests: the failure peeks open under the expect entry that differs, expected vs actual', async () => {
    const line = wrongText.split('\n').findIndex((l) => l.includes('"sign-off": "answered"')) + 1;
    await wb.goTo(line, 1);
    await wb.runCommand('Test: Peek Output');
    const peek = page.locator('.monaco-editor .peekview-widget').first();
    const text = await waitFor('the peek with expected and actual', async () => {
      const shown = await peek.innerText();
      return /Expected/.test(shown) && /answered/.test(shown) && /waiting/.test(shown) ? shown : false;
    }, { timeout: 15000 });
    // the peek opens right under the message's line: the line number just above it
    const above = await waitFor('the line number right above the peek', async () => {
      const top = (await peek.boundingBox())?.y;
      const numbers = await page.locator('.editor-instance .monaco-editor .line-numbers').evaluateAll((els) =>
        els.map((e) => ({ n: Number(e.textContent), bottom: e.getBoundingClientRect().bottom })));
      const hit = numbers.filter((x) => top !== undefined && x.bottom <= top + 2).sort((a, b) => b.bottom - a.bottom)[0];
      return hit ? hit.n : false;
    }, { timeout: 10000 });
    await page.waitForTimeout(500);
    await wb.screenshot(shot('63-design-tests-failure-diff'));
    await page.keyboard.press('Escape');
    if (above !== line) {
      throw new Error(`the peek opened under line ${above}, not line ${line} ("sign-off": "answered")`);
    }
    return `peek under line ${line} ("sign-off": "answered"): ${text.split('\n').filter((l) => /answered|waiting|Expected|Actual/.test(l)).join(' | ')}`;
  });

  await step('design tests: one case runs from its gutter icon', async () => {
    await wb.openFile('hello-world.hwf-test.json');
    await wb.goTo(1, 1);
    const before = loggedResults(world).length;
    const glyph = page.locator('.editor-instance .monaco-editor .margin .testing-run-glyph').first();
    await waitFor('a run icon in the gutter', () => glyph.isVisible(), { timeout: 30000 });
    const icons = await page.locator('.editor-instance .monaco-editor .margin .testing-run-glyph').count();
    await click(glyph);
    await page.waitForTimeout(300);
    // a click on the icon runs its test, or opens its menu (a test with results): Run Test
    if (await page.locator('.context-view .monaco-menu').isVisible().catch(() => false)) {
      await wb.pickMenuItem('Run Test');
    }
    const ran = await waitFor('one case run', async () => loggedResults(world).slice(before).find((r) => r.file === 'hello-world.hwf-test.json'), { timeout: 30000 });
    await wb.screenshot(shot('64-design-tests-gutter-run-one'));
    if (ran.passed + ran.failed !== 1) {
      throw new Error(`expected one case to run, logged ${JSON.stringify(ran)}`);
    }
    return `${icons} gutter icons in hello-world.hwf-test.json; the first ran: ${ran.passed} passed, ${ran.failed} failed`;
  });

  await typoSteps({ step, world, wb, page, shot });
}

/**
 * A test file with two mistakes on known lines: an unknown node (after an emoji on its line:
 * the column counts UTF-16 units, as JavaScript's indexOf) and an answer that is not an option.
 */
const TYPO_FILE = 'typo.hwf-test.json';
const TYPO_TEXT = `{
  "design": "review-flow.hwf.json",
  "cases": [
    {
      "name": "🚀 typos", "agents": {"drfat": {"output": "x"}},
      "answers": {"sign-off": "maybe"},
      "expect": {"status": "completed"}
    }
  ]
}
`;

async function typoSteps({ step, world, wb, page, shot }) {
  await step('design tests: a test file\'s mistakes are problems at their key or value (the bundled server)', async () => {
    fs.writeFileSync(path.join(world.folder, TYPO_FILE), TYPO_TEXT);
    await wb.openFile(TYPO_FILE);
    await page.keyboard.press('Control+Shift+M');
    const lines = TYPO_TEXT.split('\n');
    const at = (needle) => {
      const line = lines.findIndex((l) => l.includes(needle));
      return { line: line + 1, column: lines[line].indexOf(needle) + 1 };
    };
    const want = [
      { code: 'design-test', words: "unknown node 'drfat'", ...at('"drfat"') },
      { code: 'design-test', words: "'maybe' is not an option of approval 'sign-off'", ...at('"maybe"') },
    ];
    const shown = await waitFor('both problems at their places', async () => {
      const problems = (await wb.problems()).filter((p) => p.source === 'hwf');
      return want.every((w) => problems.some((p) => p.code === w.code && p.message.includes(w.words) && p.line === w.line && p.column === w.column))
        ? problems : false;
    }, { timeout: 60000, interval: 1000 });
    await wb.screenshot(shot('65-design-tests-problems'));
    fs.rmSync(path.join(world.folder, TYPO_FILE)); // the Test Explorer forgets it
    return shown.map((p) => `${p.source}(${p.code}) Ln ${p.line}, Col ${p.column}: ${p.message}`).join('; ');
  });
}

module.exports = { designTestSteps };
