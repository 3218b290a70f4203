// Completion and fixes as a VS Code user takes them (issue 29). The acceptance table: at
// each position of tests/editors/completion_positions.json (the table the Neovim and eglot
// tests use), ask for completion with Ctrl+Space, accept the first item and then a named
// one with Enter, save, and parse the file: valid JSON holding what the item meant, the
// cursor still on its line. Fix all: VS Code's "Fix All" on broken.hwf.json, then `hwf
// check` on the saved file.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { waitFor } = require('./lib/workbench');

/** Each position twice (the first item, the named one), as the Python test builds them. */
function acceptCases(repo) {
  const table = JSON.parse(fs.readFileSync(path.join(repo, 'tests', 'editors', 'completion_positions.json'), 'utf8'));
  const out = [];
  for (const position of table.positions) {
    const lines = [...table.head, ...position.lines, ...table.tail];
    const line = lines.findIndex((l) => l.includes(table.cursor));
    const column = lines[line].indexOf(table.cursor);
    lines[line] = lines[line].replace(table.cursor, '');
    for (const pick of [null, position.pick]) {
      out.push({ name: position.name, lines, line, column, pick, expected: pick ? position.expected : null });
    }
  }
  return out;
}

/** JSON text without the whitespace between tokens. */
function squeeze(text) {
  return text.replace(/("(?:[^"\\]|\\.)*")|\s+/g, (_, string) => string || '');
}

/** 'valid', or why not: the file parses, holds what the item meant, the cursor stayed on its line. */
function verdictOf(acase, text, cursor) {
  if (text === `${acase.lines.join('\n')}\n`) return 'unchanged';
  let verdict = 'valid';
  try {
    JSON.parse(text);
  } catch (error) {
    verdict = `invalid (${error.message}): ${text.split('\n')[acase.line]}`;
  }
  if (cursor.line !== acase.line || cursor.column < acase.column - 2) {
    verdict = `${verdict}, but the cursor moved to ${cursor.line},${cursor.column}`;
  }
  if (acase.expected && !squeeze(text).includes(acase.expected)) {
    verdict = `${verdict}, but not ${acase.expected}: ${squeeze(text).slice(-120)}`;
  }
  return verdict;
}

/** The labels of the suggest widget's rows on screen. */
async function suggestRows(page) {
  return page.locator('.suggest-widget.visible .monaco-list-row')
    .evaluateAll((els) => els.map((el) => el.getAttribute('aria-label') || el.innerText));
}

/** Opens completion at the cursor; accepts the first item, or the one whose label starts with `pick`. */
async function accept(page, pick) {
  const labels = await waitFor('the suggest widget with items', async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Space');
    await page.locator('.suggest-widget.visible .monaco-list-row').first().waitFor({ state: 'visible', timeout: 5000 });
    await page.waitForTimeout(400); // the list settles (a second provider may add items)
    return suggestRows(page);
  }, { timeout: 30000, interval: 500 });
  if (pick) {
    const focused = page.locator('.suggest-widget.visible .monaco-list-row.focused');
    await waitFor(`"${pick}" focused in the list`, async () => {
      const label = (await focused.getAttribute('aria-label', { timeout: 1000 }).catch(() => '')) ?? '';
      if (label.startsWith(pick)) return true;
      await page.keyboard.press('ArrowDown');
      return false;
    }, { timeout: 15000, interval: 50 });
  }
  const chosen = (await page.locator('.suggest-widget.visible .monaco-list-row.focused').getAttribute('aria-label')) ?? '';
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
  await page.keyboard.press('Escape'); // leaves a snippet's placeholders; the text stays
  return { chosen: chosen.split(',')[0], offered: labels.length };
}

/** `hwf check --format json` of a file: its findings (exit 1 when there are any). */
function findingsOf(repo, file) {
  let out;
  try {
    out = execFileSync(path.join(repo, '.venv', 'bin', 'hwf'), ['check', '--format', 'json', file], { encoding: 'utf8' });
  } catch (error) {
    out = error.stdout;
  }
  return JSON.parse(out)[0].defects;
}

async function completionSteps({ step, repo, world, wb, page, shot }) {
  await step('completion: the first and a named item accepted at each position of the acceptance table leave valid JSON', async () => {
    const file = path.join(world.folder, 'accept.hwf.json');
    const cases = acceptCases(repo);
    const rows = [];
    for (const [index, acase] of cases.entries()) {
      fs.writeFileSync(file, `${acase.lines.join('\n')}\n`);
      if (index === 0) {
        await wb.openFile('accept.hwf.json');
      } else {
        await wb.runCommand('File: Revert File');
      }
      // The whole line (to 80 characters): two cases in a row share a line's start, and the
      // previous case's accepted item must be gone before this case asks (the revert landed).
      const wanted = acase.lines[acase.line].trim().slice(0, 80);
      let onScreen = '';
      await waitFor('the case on screen', async () => {
        onScreen = (await page.locator('.editor-instance .view-lines').first().innerText())
          .replace(/\u00a0/g, ' ').replace(/\s*#\d+/g, ''); // the step-number inlay hints
        return onScreen.includes(wanted);
      }).catch((error) => {
        throw new Error(`${error.message}: ${JSON.stringify(wanted)} not in ${JSON.stringify(onScreen.slice(0, 400))}`);
      });
      await wb.goTo(acase.line + 1, acase.column + 1);
      const { chosen } = await accept(page, acase.pick);
      const cursor = /Ln (\d+), Col (\d+)/.exec(await wb.statusBarText());
      if (index === 12) await wb.screenshot(shot('30-completion-new-node-accepted'));
      await page.keyboard.press('Control+S');
      const text = await waitFor('the accepted item saved', () => {
        const saved = fs.readFileSync(file, 'utf8');
        return saved !== `${acase.lines.join('\n')}\n` ? saved : false;
      }, { timeout: 5000 }).catch(() => fs.readFileSync(file, 'utf8'));
      const verdict = verdictOf(acase, text, { line: Number(cursor?.[1] ?? 0) - 1, column: Number(cursor?.[2] ?? 0) - 1 });
      rows.push({ name: acase.name, chosen, verdict });
    }
    const table = rows.map((r) => `${r.name.padEnd(34)} ${r.chosen.padEnd(22)} ${r.verdict}`).join('\n     ');
    const wrong = rows.filter((r) => r.verdict !== 'valid');
    if (wrong.length) throw new Error(`${wrong.length} of ${rows.length} accepted items are not valid:\n     ${table}`);
    return `${rows.length} of ${rows.length} valid:\n     ${table}`;
  });

  await step('completion: "Fix All" on broken.hwf.json leaves only what the author must write (prompts, a channel), in one undoable edit, and keeps every node', async () => {
    const file = path.join(world.folder, 'broken-fix-all.hwf.json');
    const original = fs.readFileSync(path.join(world.folder, 'broken.hwf.json'), 'utf8');
    fs.writeFileSync(file, original);
    const before = findingsOf(repo, file).length;
    await wb.openFile('broken-fix-all.hwf.json');
    await waitFor('the findings drawn in the editor', async () =>
      (await page.locator('.editor-instance .squiggly-error').count()) > 0, { timeout: 30000 });
    await wb.runCommand('Fix All');
    await waitFor('no warning left in the editor', async () =>
      (await page.locator('.editor-instance .squiggly-warning').count()) === 0, { timeout: 30000 });
    await wb.screenshot(shot('31-fix-all-broken'));
    await page.keyboard.press('Control+S');
    const fixed = await waitFor('the fixed text saved', () => {
      const saved = fs.readFileSync(file, 'utf8');
      return saved !== original ? saved : false;
    }, { timeout: 5000 });
    const after = findingsOf(repo, file);
    const ids = (text) => JSON.parse(text).nodes.map((n) => n.id);
    const kept = ids(fixed).length;
    // Fix All invents no content: a missing prompt is left empty and a channel unnamed,
    // their findings stay (issue 43)
    const authors = (d) => (d.rule === 'required-payload' && / is empty;/.test(d.msg)) || d.rule === 'delivery';
    const left = after.filter((d) => !authors(d));
    if (left.length || fixed.includes('Describe the task') || kept !== ids(original).length) {
      throw new Error(`after Fix All: ${after.length} findings (${after.map((d) => d.msg).join('; ')}), ${kept} of ${ids(original).length} nodes`);
    }
    await page.keyboard.press('Control+Z');
    await page.keyboard.press('Control+S');
    const undone = await waitFor('one Ctrl+Z restores the text', () => fs.readFileSync(file, 'utf8') === original, { timeout: 5000 });
    return `hwf check: ${before} findings before, ${after.length} after (prompts and a channel to write); ${kept} of ${kept} nodes kept; one Ctrl+Z restores the text: ${undone}`;
  });
}

module.exports = { completionSteps, acceptCases, verdictOf };
