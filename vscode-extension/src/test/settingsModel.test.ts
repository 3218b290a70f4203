// Unit tests of what the server receives from the settings (node --test).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DEFAULT_DESIGN_GLOBS,
  designGlobsOf,
  designSelector,
  ExtensionSettings,
  serverSettings,
  settingsSection,
  userValue,
} from '../model/settingsModel';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const settings: ExtensionSettings = {
  pythonPath: '/venv/bin/python',
  agentCommand: ['python3', '/agents/echo.py'],
  allowModelOverride: true,
  deliveryCommand: [],
  hermesHome: '/home/h',
  designGlobs: ['**/*.hwf.json'],
};

test('serverSettings: the server keys (docs/commands.md), runsEnabled from trust, no client-only keys', () => {
  const cases: [boolean, object][] = [
    [true, { agent: { command: ['python3', '/agents/echo.py'], allowModelOverride: true }, delivery: { command: [] }, hermesHome: '/home/h', designs: { globs: ['**/*.hwf.json'] }, runsEnabled: true }],
    [false, { agent: { command: ['python3', '/agents/echo.py'], allowModelOverride: true }, delivery: { command: [] }, hermesHome: '/home/h', designs: { globs: ['**/*.hwf.json'] }, runsEnabled: false }],
  ];
  for (const [trusted, expected] of cases) {
    assert.deepEqual(serverSettings(settings, trusted), expected);
  }
});

test('settingsSection answers workspace/configuration for hwf and its subsections', () => {
  const sent = serverSettings(settings, true);
  const cases: [string | undefined, unknown][] = [
    ['hwf', sent],
    [undefined, sent],
    ['hwf.agent', sent.agent],
    ['hwf.agent.command', ['python3', '/agents/echo.py']],
    ['hwf.designs.globs', ['**/*.hwf.json']],
    ['hwf.runsEnabled', true],
    ['hwf.nothing.here', null],
    ['editor', undefined],
  ];
  for (const [section, expected] of cases) {
    assert.deepEqual(settingsSection(sent, section), expected, String(section));
  }
});

test('designSelector: the designs\' own language, on disk, for every glob', () => {
  assert.deepEqual(designSelector(['a/*.json']), [
    { language: 'hermes-workflow', scheme: 'file', pattern: 'a/*.json' },
  ]);
  assert.equal(designSelector(DEFAULT_DESIGN_GLOBS).length, 2);
});

test('designGlobsOf falls back to the defaults on junk', () => {
  const cases: [unknown, readonly string[]][] = [
    [['x/*.json'], ['x/*.json']],
    [['', '  ', 'y.json', 3], ['y.json']],
    [[], DEFAULT_DESIGN_GLOBS],
    ['**/*.json', DEFAULT_DESIGN_GLOBS],
    [undefined, DEFAULT_DESIGN_GLOBS],
  ];
  for (const [value, expected] of cases) {
    assert.deepEqual(designGlobsOf(value), expected, JSON.stringify(value));
  }
});

test('hwf.hermesHome is the user\'s alone: machine scope, restricted, workspace values ignored', () => {
  // A9: a repository's .vscode/settings.json pointing the home into the repository would
  // open the model-override gate with the repository's config.yaml.
  const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
  assert.equal(manifest.contributes.configuration.properties['hwf.hermesHome'].scope, 'machine');
  assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes('hwf.hermesHome'));
  assert.equal(userValue({ defaultValue: '', workspaceValue: '/repo/.hermes', workspaceFolderValue: '/repo/h' }), '');
  assert.equal(userValue({ defaultValue: '', globalValue: '/home/me/.hermes', workspaceValue: '/repo/.hermes' }), '/home/me/.hermes');
  assert.equal(userValue(undefined), undefined);
});
