// Issue 48, items 6 and 7 in the manifest: the Runs view's welcome is VS Code's welcome
// syntax (links, no raw Markdown) and trust-aware; Start Run is in the palette from the
// first second (not behind hwf.isDesign) and the extension activates on startup.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
const contributes = manifest.contributes;

test('the Runs view has one welcome per trust state, rendered: no backticks or asterisks', () => {
  const welcomes = contributes.viewsWelcome.filter((w: { view: string }) => w.view === 'hwf.runs');
  assert.deepEqual(welcomes.map((w: { when?: string }) => w.when).sort(), ['!isWorkspaceTrusted', 'isWorkspaceTrusted']);
  for (const w of welcomes) {
    assert.doesNotMatch(w.contents, /[`*]{1,2}[^`*\n]+[`*]{1,2}/, w.contents);
  }
  const untrusted = welcomes.find((w: { when: string }) => w.when === '!isWorkspaceTrusted');
  assert.match(untrusted.contents, /\[Manage Workspace Trust\]\(command:workbench\.trust\.manage\)/);
  assert.doesNotMatch(untrusted.contents, /command:hwf\.ui\.startRun/);
});

test('Start Run is in the palette whatever the active editor, and the extension starts with the window', () => {
  const entry = contributes.menus.commandPalette.find((m: { command: string }) => m.command === 'hwf.ui.startRun');
  assert.equal(entry.when, undefined);
  assert.ok(manifest.activationEvents.includes('onStartupFinished'));
});
