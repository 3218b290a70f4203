// The step detail's Markdown shows what a run holds and does nothing else (issue 45, B10):
// titles, errors (an agent's stderr), delivery targets, the run's name, answers and times
// are escaped; fences outgrow the content's backtick runs; a node id with a backtick stays
// inside its code span. Checked on the text: outside code, no Markdown or HTML construct
// starts unescaped, and every code block and span closes where we closed it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fenced, markdownCode, markdownText, stepDetailMarkdown } from '../model/runModel';

const HOSTILE = [
  '[x](command:workbench.action.terminal.new)',
  '<img src=x onerror=alert(1)>',
  '<iframe src="https://evil.example"></iframe>',
  '![](http://tracker.example/pixel.png)',
  '# Heading\n- item\n> quote\n1. one\n===\n| a | b |',
  '*em* __strong__ ~~gone~~ $x^2$ &amp; http://evil.example',
];
const FENCES = '```\n~~~~\n`````\n```` ``` ~~~~~~';

/** The text with fenced blocks and code spans as written by `fenced`/`markdownCode` removed. */
function outsideCode(text: string): string {
  const lines = text.split('\n');
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})/.exec(lines[i]);
    if (open) { // skip to the closing fence: exactly the opening run, alone on its line
      const end = lines.findIndex((l, j) => j > i && l === open[1]);
      assert.ok(end > i, `an unclosed fence at line ${i + 1}`);
      i = end;
      continue;
    }
    kept.push(lines[i].replace(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, ''));
  }
  return kept.join('\n');
}

/** Every Markdown/HTML-active character outside code is backslash-escaped. */
function assertInert(text: string): void {
  const rest = outsideCode(text).replace(/\\[\s\S]/g, ''); // drop escaped pairs
  for (const line of rest.split('\n')) {
    const body = line.replace(/^(# |## |- |\d+\. )/, ''); // our own headings and lists
    assert.doesNotMatch(body, /[<>[\]`!]|\]\(|&\w+;|^[#>=|-]|\*\*[^*]+\*\*(?=\S)/u, `active in: ${line}`);
  }
}

function detailWith(value: string) {
  return {
    run_id: `r\`1${value}`, name: value, run_status: value, has_output: true, output: FENCES, duration: '0.01 s',
    context: FENCES,
    step: { id: `a\`b${value}`, type: value, title: value, label: value, why: value, detail: value, error: value,
      waiting_for: 'agent', since: value, started_at: value, ended_at: value,
      attempts: [{ at: value, error: value }] },
    deliveries: [{ at: value, deliver: value, target: value, key: `k\`${value}`, ok: false, error: value }],
  };
}

for (const value of HOSTILE) {
  test(`the step detail of a run holding ${JSON.stringify(value.slice(0, 30))} is inert`, () => {
    const text = stepDetailMarkdown(detailWith(value));
    assertInert(text.replace(/\*\*/g, '')); // our own bold markers
    assert.doesNotMatch(outsideCode(text), /(^|[^\\])(<img|<iframe|\]\(command:|!\[)/);
  });
}

test('a fence outgrows every backtick run of its content; tildes cannot close it', () => {
  const block = fenced(FENCES, 'text');
  const [open, ...rest] = block.split('\n');
  assert.equal(open, '``````text'); // 6 > the 5-backtick run inside
  assert.equal(rest.at(-1), '``````');
  assert.equal(rest.slice(0, -1).join('\n'), FENCES);
  assert.ok(!rest.slice(0, -1).some((line) => /^`{6,}\s*$/.test(line)));
});

test('a code span outgrows the backticks of its id and stays on one line', () => {
  const cases: [string, string][] = [
    ['post', '`post`'],
    ['a`b', '``a`b``'],
    ['`edge`', '`` `edge` ``'],
    ['two\nlines', '`two lines`'],
  ];
  for (const [id, span] of cases) {
    assert.equal(markdownCode(id), span, id);
  }
});

test('escaped text keeps its characters and its line breaks', () => {
  assert.equal(markdownText('a [b](c) <d>'), 'a \\[b\\]\\(c\\) \\<d\\>');
  assert.equal(markdownText('one\ntwo'), 'one\\\ntwo');
  assert.equal(markdownText('✓ done'), '✓ done');
});
