// Driving the VS Code workbench in the browser, the way a person would: clicks,
// keys, the command palette, quick picks. Every wait polls; nothing sleeps blindly.
'use strict';

const { click } = require('./click');

const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Polls `probe` until it returns a truthy value; throws `what` after `timeout` ms. */
async function waitFor(what, probe, { timeout = 30000, interval = 250 } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await probe();
      if (last) {
        return last;
      }
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? `: ${last.message}` : '';
      throw new Error(`timed out after ${timeout} ms waiting for ${what}${detail}`);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}

class Workbench {
  constructor(page) {
    this.page = page;
  }

  async open(url, folder) {
    await this.page.goto(`${url}/?folder=${encodeURIComponent(folder)}`);
    await this.page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await waitFor('the explorer', () => this.page.locator('.explorer-folders-view .monaco-list-row').first().isVisible(), { timeout: 60000 });
  }

  /** Drags the side bar's edge to make it `extra` pixels wider (room for run details). */
  async widenSideBar(extra) {
    const box = await this.page.locator('.part.sidebar').boundingBox();
    if (!box) {
      return;
    }
    const x = box.x + box.width;
    const y = box.y + box.height / 2;
    await this.page.mouse.move(x - 1, y);
    await this.page.mouse.down();
    await this.page.mouse.move(x + extra / 2, y, { steps: 5 });
    await this.page.mouse.move(x + extra, y, { steps: 5 });
    await this.page.mouse.up();
  }

  /** Opens a file by clicking it in the explorer (Quick Open can lose focus on first start). */
  async openFile(name) {
    await this.runCommand('View: Show Explorer');
    const row = this.page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first();
    // a file written while the workbench starts can miss the explorer's watcher: after 10 s
    // without its row the explorer is refreshed, as a person would
    const listed = await row.waitFor({ state: 'visible', timeout: 10000 }).then(() => true, () => false);
    if (!listed) {
      console.log(`     (${name} not in the explorer after 10 s: Refresh Explorer)`);
      await this.runCommand('Refresh Explorer');
    }
    await click(row);
    await waitFor(`an editor tab for ${name}`, () =>
      this.page.locator('.tabs-container .tab.active', { hasText: name }).isVisible(),
    );
    await waitFor(`the editor of ${name}`, () => this.page.locator('.editor-instance .monaco-editor .view-lines').first().isVisible());
  }

  /**
   * Runs a command through the command palette (F1), by its title. On a loaded machine a
   * view the last click opened can take the focus late and close the palette (issue 33:
   * "element is not visible" for 30 s): then it is opened again, and Enter is pressed only
   * while the palette's input has the focus.
   */
  async runCommand(title) {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    const row = this.page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
    let opened = false;
    let openedAt = 0;
    await waitFor(`"${title}" in the command palette`, async () => {
      // the palette lists the commands whose `when` held as it opened (an editor that became
      // active meanwhile makes more): after 5 s without the row it is opened afresh
      if (!opened || !(await input.isVisible()) || Date.now() - openedAt > 5000) {
        openedAt = Date.now();
        await this.page.keyboard.press('Escape');
        await this.page.keyboard.press('F1');
        await input.waitFor({ state: 'visible', timeout: 10000 });
        opened = true;
      }
      if ((await input.inputValue()) !== `>${title}`) {
        await input.fill(`>${title}`, { timeout: 2000 });
      }
      return (await row.isVisible()) && (await input.evaluate((el) => el === document.activeElement));
    }, { timeout: 30000 });
    await this.page.keyboard.press('Enter');
  }

  /** The rows of the visible quick pick, as text. */
  async quickPickRows() {
    return this.page.locator('.quick-input-widget .monaco-list-row').allInnerTexts();
  }

  async pickQuickItem(label) {
    const row = this.page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
    await waitFor(`"${label}" in the quick pick`, () => row.isVisible(), { timeout: 15000 });
    await click(row);
  }

  /** Clicks an entry of the open context menu. */
  async pickMenuItem(label) {
    const item = this.page.locator('.context-view .monaco-menu .action-menu-item', { hasText: label }).first();
    await waitFor(`"${label}" in the context menu`, () => item.isVisible(), { timeout: 10000 });
    // The menu acts on a focused item and Enter (a click can land while it animates in).
    await item.hover();
    await item.focus();
    await this.page.keyboard.press('Enter');
    await waitFor('the context menu to close', async () => !(await item.isVisible()), { timeout: 5000 });
  }

  /** Puts the cursor at a 1-based line and column with Go to Line (Ctrl+G). */
  /**
   * Focus the text editor with a click at a point of its visible box, right of most text.
   * (A click on `.view-lines` aims at the middle of the lines' full width, off screen when
   * a line is long, and Playwright scrolls the editor sideways to reach it.)
   */
  async focusText() {
    const editor = this.page.locator('.editor-instance .monaco-editor').first();
    const box = await editor.boundingBox();
    await click(editor, { position: { x: Math.round(box.width * 0.75), y: Math.round(box.height / 2) } });
  }

  async goTo(line, column) {
    await this.focusText();
    await this.page.keyboard.press('Control+G');
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    await input.fill(`:${line}:${column}`);
    await this.page.keyboard.press('Enter');
    await waitFor(`the cursor at ${line}:${column}`, async () =>
      /Ln (\d+), Col (\d+)/.exec(await this.statusBarText())?.slice(1).join(':') === `${line}:${column}`,
    );
  }

  /**
   * The text of the notifications: the toasts, and the notification center when a
   * toast was hidden (Escape hides toasts, and the palette helpers press it).
   */
  async notificationsText({ openCenter = false } = {}) {
    const toasts = (await this.page.locator('.notifications-toasts .notification-toast').allInnerTexts()).join('\n');
    if (!openCenter) {
      return toasts;
    }
    if (!(await this.page.locator('.notifications-center.visible').count())) {
      await this.runCommand('Notifications: Show Notifications');
    }
    const center = (await this.page.locator('.notifications-center .notification-list-item').allInnerTexts()).join('\n');
    return `${toasts}\n${center}`;
  }

  async statusBarText() {
    return this.page.locator('.part.statusbar').innerText();
  }

  /**
   * Every row of the Problems panel, scrolling through its virtual list. Each row:
   * {severity, message, source, code, line, column}.
   */
  async problems() {
    const panel = this.page.locator('.markers-panel');
    const seen = new Map();
    const rows = panel.locator('.monaco-list-row');
    await panel.locator('.monaco-list').first().hover();
    for (let i = 0; i < 20; i += 1) {
      await this.page.mouse.wheel(0, -400);
    }
    await this.page.waitForTimeout(150);
    // Stop after three scrolls that show no new problem: a problem's related places are
    // rows too, and one scroll may show only those.
    for (let round = 0, still = 0; round < 60 && still < 3; round += 1) {
      const before = seen.size;
      for (const label of await rows.evaluateAll((els) => els.map((el) => [el.getAttribute('aria-label') ?? '', el.innerText]))) {
        const [aria, text] = label;
        const marker = /^(Error|Warning|Info|Hint): /.exec(aria);
        if (marker && !seen.has(aria)) {
          seen.set(aria, parseProblemRow(marker[1], text));
        }
      }
      still = round > 0 && seen.size === before ? still + 1 : 0;
      await this.page.mouse.wheel(0, 300);
      await this.page.waitForTimeout(100);
    }
    return [...seen.values()];
  }

  /** Shows the Hermes Workflow side bar (its activity bar icon), unless it is showing. */
  async showRunsView() {
    const title = this.page.locator('.part.sidebar .composite.title');
    // a closed side bar keeps its last title in the DOM: showing means visible too
    if (await this.page.locator('.part.sidebar').isVisible() && /hermes workflow/i.test(await title.innerText().catch(() => ''))) {
      return;
    }
    // The item, not its label: a badge (runs waiting) may cover the label.
    await click(this.page.locator('.part.activitybar .action-item:has(a[aria-label^="Hermes Workflow"])').first());
    await waitFor('the Hermes Workflow side bar', async () => /hermes workflow/i.test(await title.innerText()));
    // The opened view takes the focus a moment later: wait for it (bounded), or it closes
    // the command palette the next step opens.
    await waitFor('the Runs view to take the focus', () => this.page.evaluate(
      () => Boolean(document.activeElement?.closest('.part.sidebar'))), { timeout: 3000 }).catch(() => {});
  }

  /**
   * The Runs view row of a run of `design` (of run `runId` when given) with `status`,
   * found by its accessible label "<design> run <id>: <status>".
   */
  async waitForRun(design, status, timeout = 30000, runId = '') {
    await this.showRunsView();
    const rows = this.page.locator('.part.sidebar .monaco-list-row');
    const wanted = `${design} run ${runId}`;
    const label = await waitFor(`a ${status} run of ${design} in the Runs view`, async () => {
      const labels = await rows.evaluateAll((els) => els.map((el) => el.getAttribute('aria-label') ?? ''));
      return labels.find((l) => l.startsWith(wanted) && l.endsWith(`: ${status}`)) ?? false;
    }, { timeout });
    // By its label, not its position: the list reorders when runs change.
    return this.page.locator(`.part.sidebar .monaco-list-row[aria-label="${label.replace(/"/g, '\\"')}"]`).first();
  }

  /** The run id in a Runs view row's accessible label. */
  async runIdOf(row) {
    return /^\S+ run (\S+):/.exec((await row.getAttribute('aria-label')) ?? '')?.[1] ?? '';
  }

  /** Expands a run's row; clicks again if a refresh of the view swallowed the click. */
  async expandRun(row) {
    await waitFor('the run to expand', async () => {
      if ((await row.getAttribute('aria-expanded')) === 'true') {
        return true;
      }
      await click(row.locator('.monaco-tl-twistie'), { timeout: 2000 });
      await this.page.waitForTimeout(300);
      return (await row.getAttribute('aria-expanded')) === 'true';
    }, { interval: 500 });
  }

  async runsViewText() {
    return this.page.locator('.part.sidebar').innerText();
  }

  async screenshot(file) {
    await this.page.screenshot({ path: file });
  }
}

/** "message\nhwf\ncode\n[Ln 5, Col 36]" (innerText of a Problems row) → fields. */
function parseProblemRow(severity, text) {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const position = /\[Ln (\d+), Col (\d+)\]/.exec(text);
  const sourceCode = /(\S+)\((\S+)\)\s*\[Ln/.exec(text.replace(/\n/g, ' '));
  return {
    severity: severity.toLowerCase(),
    message: lines[0] ?? '',
    source: sourceCode ? sourceCode[1] : lines[1] ?? '',
    code: sourceCode ? sourceCode[2] : lines[2] ?? '',
    line: position ? Number(position[1]) : 0,
    column: position ? Number(position[2]) : 0,
    text,
  };
}

module.exports = { Workbench, waitFor, LAUNCH_ARGS, parseProblemRow };
