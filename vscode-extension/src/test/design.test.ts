// Unit tests of reading a design's text (node --test).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { designName, designNodeSpots, nodeIdAt } from '../model/design';

const text = `{
  "name": "hello",
  "nodes": [
    {"id": "start", "type": "trigger"},
    {"id": "greet", "type": "agent", "prompt": "Hi", "after": ["start"]},
    {"id": "", "type": "agent"}
  ]
}`;

test('designName reads the name, tolerating broken text', () => {
  const cases: [string, string | undefined][] = [
    [text, 'hello'],
    ['{"name": "x", "nodes": [', 'x'],
    ['[1, 2]', undefined],
    ['', undefined],
    ['{"name": 5}', undefined],
  ];
  for (const [input, expected] of cases) {
    assert.equal(designName(input), expected, input);
  }
});

test('designNodeSpots lists nodes with an id, in file order', () => {
  assert.deepEqual(designNodeSpots(text).map((s) => [s.id, s.type]), [['start', 'trigger'], ['greet', 'agent']]);
  assert.deepEqual(designNodeSpots('{"nodes": 3}'), []);
});

test('nodeIdAt finds the node whose object holds the offset', () => {
  const cases: [string, string | undefined][] = [
    ['"prompt"', 'greet'],
    ['"Hi"', 'greet'],
    ['["start"]', 'greet'],
    ['"trigger"', 'start'],
    ['"name"', undefined],
  ];
  for (const [needle, expected] of cases) {
    assert.equal(nodeIdAt(text, text.indexOf(needle) + 1), expected, needle);
  }
});
