// Unit tests of the Test Explorer's pure parts (node --test): the cases of a test file's
// text with their ranges, the server's hwf.runDesignTests answer, the failure messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asDesignTestAnswer, failureMessages, errorMessages, positionsOf, shownValue, testCases } from '../model/designTestModel';
import { serverSelector } from '../model/settingsModel';

const TEXT = `{
  "design": "flow.hwf.json",
  "cases": [
    {"name": "🚀 first", "expect": {"status": "completed"}},
    {"name": "second",
     "expect": {"status": "failed"}},
    {"name": ""},
    {"name": "first"},
    {"name": "🚀 first"},
    7
  ]
}`;

test('testCases lists the named cases with their ranges, first of a name only', () => {
  const spots = testCases(TEXT);
  assert.deepEqual(spots.map((s) => [s.name, s.index]), [['🚀 first', 0], ['second', 1], ['first', 3]]);
  assert.deepEqual(spots[0].range, { start: { line: 3, character: 4 }, end: { line: 3, character: 59 } });
  assert.deepEqual(spots[1].range, { start: { line: 4, character: 4 }, end: { line: 5, character: 36 } });
});

test('testCases tolerates what a test file is not (yet)', () => {
  const cases: string[] = ['', '[]', '{"cases": 3}', '{"cases": [{"name": "a", ', '{"design": "x"}'];
  for (const text of cases) {
    const spots = testCases(text);
    assert.ok(Array.isArray(spots), text);
  }
  assert.deepEqual(testCases('{"cases": [{"name": "a", ').map((s) => s.name), ['a']);
});

test('positionsOf counts UTF-16 units and every line break', () => {
  const at = positionsOf('a\r\n🚀b\rc\nd');
  const cases: [number, { line: number; character: number }][] = [
    [0, { line: 0, character: 0 }],
    [3, { line: 1, character: 0 }],
    [5, { line: 1, character: 2 }],
    [7, { line: 2, character: 0 }],
    [9, { line: 3, character: 0 }],
  ];
  for (const [offset, pos] of cases) {
    assert.deepEqual(at(offset), pos, String(offset));
  }
});

const span = (l: number, c: number, l2: number, c2: number) => ({ start: { line: l, character: c }, end: { line: l2, character: c2 } });

const ANSWER = {
  uri: 'file:///w/flow.hwf-test.json',
  path: '/w/flow.hwf-test.json',
  design: 'flow.hwf.json',
  cases: [
    { name: 'ok', index: 0, passed: true, failures: [], duration: 0.01, range: span(3, 4, 3, 40), differences: [] },
    {
      name: 'bad', index: 1, passed: false, failures: ["step 'high': expected 'done', got 'skipped'"], duration: 0.02, range: span(4, 4, 5, 30),
      differences: [
        { part: 'steps', node: 'high', expected: 'done', actual: 'skipped', message: "step 'high': expected 'done', got 'skipped'", range: span(5, 20, 5, 26) },
        { part: 'outputs', node: 'work', expected: { score: 9 }, actual: null, message: 'output of work', range: 'junk' },
      ],
    },
    { name: 'broken' },
  ],
  errors: [],
};

test('asDesignTestAnswer keeps what is well formed and drops the rest', () => {
  const answer = asDesignTestAnswer(ANSWER)!;
  assert.deepEqual(answer.cases.map((c) => [c.name, c.passed]), [['ok', true], ['bad', false]]);
  assert.equal(answer.cases[1].differences[1].range, undefined);
  for (const junk of [null, 3, 'x', {}, { cases: 'no' }]) {
    assert.equal(asDesignTestAnswer(junk), undefined, JSON.stringify(junk));
  }
});

test('failureMessages: one diff per difference, at its entry, else at the case', () => {
  const answer = asDesignTestAnswer(ANSWER)!;
  const messages = failureMessages(answer.cases[1]);
  assert.deepEqual(messages[0], { message: "step 'high': expected 'done', got 'skipped'", expected: 'done', actual: 'skipped', range: span(5, 20, 5, 26) });
  assert.equal(messages[1].expected, '{\n  "score": 9\n}');
  assert.equal(messages[1].actual, 'null');
  assert.deepEqual(messages[1].range, span(4, 4, 5, 30));
  const plain = failureMessages({ ...answer.cases[1], differences: [] });
  assert.deepEqual(plain, [{ message: "step 'high': expected 'done', got 'skipped'", range: span(4, 4, 5, 30) }]);
});

test('errorMessages name the case and keep the place', () => {
  const answer = asDesignTestAnswer({ cases: [], errors: [{ pointer: '/cases/0/agents/wrok', case: 'c', msg: "unknown node 'wrok'", range: span(3, 30, 3, 36) }, { msg: 'missing design' }] })!;
  assert.deepEqual(errorMessages(answer), [
    { message: "case 'c': unknown node 'wrok'", range: span(3, 30, 3, 36) },
    { message: 'missing design', range: undefined },
  ]);
});

test('shownValue: strings as themselves, the rest as JSON', () => {
  assert.equal(shownValue('done'), 'done');
  assert.equal(shownValue(true), 'true');
  assert.equal(shownValue(undefined), '(no value)');
  assert.equal(shownValue([1]), '[\n  1\n]');
});

test('the server is given the design test files besides the designs', () => {
  const patterns = serverSelector(['**/*.hwf.json']).map((f) => `${f.language}:${f.pattern}`);
  assert.deepEqual(patterns, ['hermes-workflow:**/*.hwf.json', 'hermes-workflow-test:**/*.hwf-test.json']);
});
