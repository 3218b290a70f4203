// Unit tests of the inspector's expression completion (node --test): which of the
// server's items the list shows for what is typed, accepting one, the arrows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { acceptItem, moveActive, shownItems } from '../webview/expressionCompletion';
import type { ExpressionItem } from '../model/protocol';

const item = (label: string, text: string, start: number, end: number, kind = 'node'): ExpressionItem => ({ label, kind, text, start, end });

// (expression, cursor, the server's items, the labels shown)
const CASES: [string, number, ExpressionItem[], string[]][] = [
  ['', 0, [item('out.review', 'out.review.', 0, 0), item('out.draft', 'out.draft.', 0, 0)], ['out.review', 'out.draft']],
  ['ou', 2, [item('out.review', 'out.review.', 0, 2), item('out.draft', 'out.draft.', 0, 2)], ['out.review', 'out.draft']],
  ['out.d', 5, [item('review', 'review.', 4, 5), item('draft', 'draft.', 4, 5)], ['draft']],
  ['out.D', 5, [item('review', 'review.', 4, 5), item('draft', 'draft.', 4, 5)], ['draft']],
  // a finished word: the item that would change nothing is not offered, the list closes
  ['out.review.score', 16, [item('verdict', 'verdict', 11, 16, 'path'), item('score', 'score', 11, 16, 'path')], []],
  ['out.review.score >= 8', 21, [item('8', '8', 20, 21, 'literal')], []],
  ['out.review.score ', 17, ['==', '!=', '<', '<=', '>', '>='].map((op) => item(op, `${op} `, 17, 17, 'operator')), ['==', '!=', '<', '<=', '>', '>=']],
  ['out.review.score <', 18, ['==', '!=', '<', '<=', '>', '>='].map((op) => item(op, `${op} `, 17, 18, 'operator')), ['<', '<=']],
  ['out.review.verdict == "a', 24, [item('"approve"', '"approve"', 22, 24, 'literal'), item('true', 'true', 22, 24, 'literal')], ['"approve"']],
  // ranges that do not fit the text (an answer for an older keystroke) are dropped
  ['out.', 4, [item('late', 'late.', 6, 6), item('far', 'far.', 4, 9)], []],
];

test('the list shows the server\'s items that fit what is typed, in the server\'s order', () => {
  for (const [text, cursor, items, labels] of CASES) {
    assert.deepEqual(shownItems(items, text, cursor).map((i) => i.label), labels, `${text}|`);
  }
});

test('accepting an item replaces its range and puts the cursor after what it inserted', () => {
  assert.deepEqual(acceptItem('out.re', item('review', 'review.', 4, 6)), { text: 'out.review.', cursor: 11 });
  assert.deepEqual(acceptItem('out.review.sc >= 7', item('score', 'score', 11, 13, 'path')), { text: 'out.review.score >= 7', cursor: 16 });
  assert.deepEqual(acceptItem('out.review.score ', item('>=', '>= ', 17, 17, 'operator')), { text: 'out.review.score >= ', cursor: 20 });
});

test('the arrows wrap around the list', () => {
  assert.equal(moveActive(0, 3, 1), 1);
  assert.equal(moveActive(2, 3, 1), 0);
  assert.equal(moveActive(0, 3, -1), 2);
  assert.equal(moveActive(0, 0, 1), 0);
});
