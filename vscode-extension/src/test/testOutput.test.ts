import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { DesignTestAnswer } from '../model/designTestModel';
import { runOutput, shownMessages } from '../model/testOutput';

const span = { start: { line: 3, character: 4 }, end: { line: 3, character: 12 } };

const answer: DesignTestAnswer = {
  uri: 'file:///w/flow.hwf-test.json',
  design: 'flow',
  errors: [],
  cases: [
    { name: 'approved', index: 0, passed: true, failures: [], duration: 0.0123, differences: [] },
    {
      name: 'rejected', index: 1, passed: false, failures: [], duration: 0.002, range: span,
      differences: [{ part: 'status', node: null, expected: 'failed', actual: 'completed', message: "status: expected 'failed', got 'completed'", range: span }],
    },
  ],
};

test('runOutput: a line per case, each failure in the server\'s words, CRLF', () => {
  assert.equal(runOutput('flow.hwf-test.json', answer), [
    'flow.hwf-test.json: 1 passed, 1 failed',
    '  ✓ approved (12 ms)',
    '  ✗ rejected (2 ms)',
    "      status: expected 'failed', got 'completed'",
    '',
  ].join('\r\n'));
  const broken: DesignTestAnswer = { ...answer, cases: [], errors: [{ pointer: '/design', case: null, msg: 'no design file', range: span }] };
  assert.equal(runOutput('x.hwf-test.json', broken), 'x.hwf-test.json: cannot run\r\n  no design file\r\n');
});

test('shownMessages: the words first, then the diff at the same place (the first is drawn inline)', () => {
  const shown = shownMessages({ message: "status: expected 'failed', got 'completed'", expected: 'failed', actual: 'completed', range: span });
  assert.deepEqual(shown, [
    { text: "status: expected 'failed', got 'completed'", range: span },
    { text: "status: expected 'failed', got 'completed'", range: span, diff: { expected: 'failed', actual: 'completed' } },
  ]);
  assert.deepEqual(shownMessages({ message: 'timed out', range: span }), [{ text: 'timed out', range: span }]);
});
