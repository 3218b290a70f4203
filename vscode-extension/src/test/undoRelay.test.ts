// The canvas's undo and redo through the text editor (model/undoRelay.ts), in a fake
// workbench whose focus moves as VS Code's does: the text editor's at once, the canvas
// page's a hop later (the workbench focuses the webview's frame, the frame its page), and
// the `undo` / `redo` command acting on whatever has the focus when it gets there.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { UiCommand } from '../model/constants';
import { UndoKind, UndoRelay } from '../model/undoRelay';

const later = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The workbench: who has the focus, and the document's history (an undo stack of edits). */
function workbench(hop = { canvas: 5, command: 10 }, lostReveals = 0) {
  let owner: 'canvas' | 'text' = 'canvas';
  const done: string[] = [];
  const history = { past: ['edit'], future: [] as string[] };
  const warnings: string[] = [];
  let revealed = 0;
  // eslint-disable-next-line prefer-const
  let relay: UndoRelay;
  const setOwner = (next: 'canvas' | 'text') => {
    const was = owner;
    owner = next;
    if (was !== next) setTimeout(() => relay.focusChanged(next === 'canvas'), 0); // the page's focus/blur message
  };
  relay = new UndoRelay({
    focusText: async () => setOwner('text'),
    run: async (which: UndoKind) => {
      await later(hop.command); // the command's way to the workbench
      if (owner !== 'text') {
        done.push(`${which} lost`); // the webview's undo: nothing in the document
        return;
      }
      const [from, to] = which === 'undo' ? [history.past, history.future] : [history.future, history.past];
      const edit = from.pop();
      if (edit) to.push(edit);
      done.push(which);
    },
    focusCanvas: () => {
      revealed += 1;
      if (revealed > lostReveals && Number.isFinite(hop.canvas)) setTimeout(() => setOwner('canvas'), hop.canvas);
    },
    warn: (text) => warnings.push(text),
  }, 200);
  relay.focusChanged(true); // the user clicked into the canvas
  return { relay, done, history, warnings, reveals: () => revealed };
}

// (what the user does, what the document's history must be after it)
const CASES: [string, UndoKind[], { past: string[]; future: string[] }][] = [
  ['Ctrl+Z', ['undo'], { past: [], future: ['edit'] }],
  ['Ctrl+Z, then Ctrl+Shift+Z at once (the undo\'s focus still on its way to the canvas)', ['undo', 'redo'], { past: ['edit'], future: [] }],
  ['Ctrl+Z, Ctrl+Shift+Z, Ctrl+Z', ['undo', 'redo', 'undo'], { past: [], future: ['edit'] }],
];

for (const [what, keys, expected] of CASES) {
  test(`undo relay: ${what} reaches the document`, async () => {
    const { relay, done, history, warnings } = workbench();
    await Promise.all(keys.map((k) => relay.request(k)));
    assert.deepEqual(done, keys);
    assert.deepEqual(history, expected);
    assert.deepEqual(warnings, []);
  });
}

test('undo relay: a canvas that never gets the focus back delays the next request by the bound, it does not block it', async () => {
  const { relay, done, warnings, reveals } = workbench({ canvas: Infinity, command: 1 });
  const started = Date.now();
  await relay.request('undo');
  await relay.request('redo');
  assert.deepEqual(done, ['undo', 'redo']);
  assert.equal(warnings.length, 2);
  assert.match(warnings[0], /did not get the focus back within 200 ms/);
  assert.equal(reveals(), 4); // asked twice per request
  assert.ok(Date.now() - started < 2000);
});

test('undo relay: a reveal that focused the frame but not the canvas page is asked for once more', async () => {
  const { relay, done, warnings, reveals } = workbench(undefined, 1);
  await relay.request('undo');
  await relay.request('redo');
  assert.deepEqual(done, ['undo', 'redo']);
  assert.equal(reveals(), 3);
  assert.deepEqual(warnings, []);
});

test('undo relay: Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y reach the canvas when the workbench gets them while a canvas is the active editor (hidden from the palette)', () => {
  const contributes = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')).contributes;
  const bound = contributes.keybindings.map((k: { key: string; command: string; when: string }) => `${k.key} ${k.command} ${k.when}`);
  // only for the canvas's keys: not a key typed in the sidebar, the panel (a terminal's Ctrl+Z), a find box
  const when = "activeWebviewPanelId == 'hwf.canvas' && !inputFocus && !sideBarFocus && !panelFocus && !auxiliaryBarFocus";
  assert.deepEqual(bound, [`ctrl+z ${UiCommand.canvasUndo} ${when}`, `ctrl+shift+z ${UiCommand.canvasRedo} ${when}`, `ctrl+y ${UiCommand.canvasRedo} ${when}`]);
  for (const command of [UiCommand.canvasUndo, UiCommand.canvasRedo]) {
    assert.ok(contributes.commands.some((c: { command: string }) => c.command === command));
    assert.ok(contributes.menus.commandPalette.some((m: { command: string; when: string }) => m.command === command && m.when === 'false'));
  }
});
