// Unit tests of what gets the "treat files like this as designs?" offer (node --test).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { globForFilesLike, looksLikeDesign } from '../model/designOffer';
import { settingNotUsedText } from '../model/pythonModel';

const LOOKS: Array<[string, string, boolean]> = [
  ['a design', '{"nodes": [{"id": "a", "type": "trigger"}, {"id": "b", "type": "agent"}]}', true],
  ['a node without a type', '{"nodes": [{"id": "a", "type": "trigger"}, {"id": "b"}]}', false],
  ['no nodes', '{"name": "x"}', false],
  ['empty nodes', '{"nodes": []}', false],
  ['nodes of strings', '{"nodes": ["a"]}', false],
  ['an array', '[{"id": "a", "type": "trigger"}]', false],
  ['broken text', '{"nodes": [{"id": "a", "type": "trigger"}', false],
  ['a package.json', '{"name": "x", "dependencies": {}}', false],
];

for (const [name, text, expected] of LOOKS) {
  test(`looksLikeDesign: ${name}`, () => assert.equal(looksLikeDesign(text), expected));
}

const GLOBS: Array<[string, string]> = [
  ['misc/flow.json', '**/misc/*.json'],
  ['a/b/flows/x.json', '**/flows/*.json'],
  ['flow.json', '*.json'],
  ['misc/flow.jsonc', '**/misc/*.jsonc'],
];

for (const [relative, expected] of GLOBS) {
  test(`globForFilesLike: ${relative}`, () => assert.equal(globForFilesLike(relative), expected));
}

test('settingNotUsedText names the setting, why, and the fallback', () => {
  assert.equal(
    settingNotUsedText('/opt/nowhere/bin/python3', 'not found', { path: 'python3', version: '3.12.3', from: 'the default' }),
    'hwf.server.pythonPath "/opt/nowhere/bin/python3" cannot be used (not found): the language server runs on python3 (Python 3.12.3, the default) instead.',
  );
});
