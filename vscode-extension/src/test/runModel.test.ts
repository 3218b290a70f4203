// Unit tests of the pure run model (node --test). Tables of cases, one check each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { localTime } from '../model/timeWords';
import {
  ageOf,
  debugEditsOf,
  applyRunsChanged,
  durationOf,
  filterRuns,
  filterText,
  newestRunOf,
  previewOf,
  progressOf,
  RunsFilter,
  RunSummary,
  runsOf,
  stateClass,
  stepDetailMarkdown,
  stepIcon,
  stepsOfRun,
  STEP_STATES,
  undeliveredOf,
} from '../model/runModel';

type Status = string | null;
/** A summary whose step_states are the server's: [id, type, status, extra]. */
const summaryWith = (status: string, steps: [string, string, Status, object?][], extra: object = {}): RunSummary => ({
  run_id: 'abc123',
  name: 'flow',
  status,
  step_states: steps.map(([id, type, s, more]) => ({ id, type, status: s, ...more })),
  ...extra,
});

test('stepsOfRun renders the server\'s step states as they are, previews from the run file', () => {
  const cases: [string, RunSummary, unknown, [string, string, string, string][]][] = [
    [
      'completed run shows outputs; an answered approval its answer; labels are the server\'s',
      summaryWith('completed', [['draft', 'agent', 'done', { label: '✓ done' }], ['gate', 'condition', 'done', { label: '✓ done' }],
        ['ok', 'approval', 'answered', { answer: 'ship', label: '☑ answered ship' }], ['post', 'output', 'done', { label: '✓ done' }]]),
      { outputs: { draft: 'hello', gate: true, ok: { choice: 'ship' }, post: { draft: 'hello' } } },
      [['draft', 'done', '✓ done', 'hello'], ['gate', 'done', '✓ done', 'true'], ['ok', 'answered', '☑ answered ship', 'answered ship'], ['post', 'done', '✓ done', '{"draft":"hello"}']],
    ],
    [
      'a failed delivery is not delivered (never done), with the receipt\'s error',
      summaryWith('completed', [['post', 'output', 'not delivered', { label: '⚠ not delivered', target: 'slack:#team', error: 'no channel command configured' }]]),
      { outputs: { post: { draft: 'x' } } },
      [['post', 'not delivered', '⚠ not delivered', 'not delivered to slack:#team: no channel command configured']],
    ],
    [
      'a rejection is rejected; its downstream skipped: rejected upstream',
      summaryWith('completed', [['ok', 'approval', 'rejected', { label: '⊘ rejected', answer: 'reject', detail: "answered 'reject'" }],
        ['post', 'output', 'skipped', { label: '⤼ skipped: rejected upstream', why: 'rejected upstream', detail: "parent 'ok' was skipped" }]]),
      { outputs: { ok: { choice: 'reject' } } },
      [['ok', 'rejected', '⊘ rejected', "answered 'reject'"], ['post', 'skipped', '⤼ skipped: rejected upstream', "rejected upstream: parent 'ok' was skipped"]],
    ],
    [
      'parked approval waits since when, later steps not run',
      summaryWith('awaiting_approval', [['draft', 'agent', 'done'], ['ok', 'approval', 'waiting', { waiting_for: 'approval', since: 'T0', escalated: true }], ['post', 'output', 'not run']],
        { pending: { kind: 'approval', node: 'ok', question: 'Ship?', options: ['approve', 'reject'] } }),
      { outputs: { draft: 'x' } },
      [['draft', 'done', 'done', 'x'], ['ok', 'waiting', 'waiting', 'Ship? · since T0 (escalated)'], ['post', 'not run', 'not run', 'not run']],
    ],
    [
      'failed step shows the server\'s error; the running step is the server\'s',
      summaryWith('failed', [['draft', 'agent', 'failed', { error: 'agent step draft failed' }], ['gate', 'condition', 'running'], ['ok', 'approval', 'not run']]),
      { outputs: {} },
      [['draft', 'failed', 'failed', 'agent step draft failed'], ['gate', 'running', 'running', 'running…'], ['ok', 'not run', 'not run', 'not run']],
    ],
    [
      'run from here: reused steps name the base run',
      summaryWith('completed', [['draft', 'agent', 'reused', { rerun: false }], ['gate', 'condition', 'done', { rerun: true }]], { base_run: 'fff000', from_node: 'gate' }),
      { outputs: { draft: 'old', gate: true } },
      [['draft', 'reused', 'reused', 'reused from fff000: old'], ['gate', 'done', 'done', 'true']],
    ],
    [
      'cancelled run: the rest did not run',
      summaryWith('cancelled', [['draft', 'agent', 'done'], ['gate', 'condition', 'not run']]),
      { outputs: { draft: 'x' } },
      [['draft', 'done', 'done', 'x'], ['gate', 'not run', 'not run', 'not run (cancelled)']],
    ],
    [
      'junk entries and unknown or null statuses (an older server) read not run',
      summaryWith('running', [], { step_states: [{ id: 'a', type: 'agent', status: 'done' }, { id: 'b', type: 'output', status: 'bogus' }, { id: 'c', status: null }, { junk: 1 }] }),
      undefined,
      [['a', 'done', 'done', 'done'], ['b', 'not run', 'not run', 'not run'], ['c', 'not run', 'not run', 'not run']],
    ],
    ['no step_states, no steps (whatever the run file holds)', summaryWith('running', [], { step_states: 'junk' }), { outputs: { a: 1 } }, []],
  ];
  for (const [name, summary, file, expected] of cases) {
    const got = stepsOfRun(file, summary).map((s) => [s.id, s.state, s.label, s.preview]);
    assert.deepEqual(got, expected, name);
  }
});

test('stepsOfRun carries the server\'s times and attempts', () => {
  const summary = summaryWith('failed', [['draft', 'agent', 'failed', {
    started_at: '2026-11-30T05:00:00.000Z', ended_at: '2026-11-30T05:03:05.000Z',
    attempts: [{ error: 'overloaded', at: 'T1' }, { error: 'timeout', at: 'T2' }],
  }]]);
  const [step] = stepsOfRun(undefined, summary);
  assert.equal(step.times, `started ${localTime('2026-11-30T05:00:00.000Z')}, ended ${localTime('2026-11-30T05:03:05.000Z')} (ran 3 min 5 s)`);
  assert.equal(step.duration, '3 min 5 s');
  assert.deepEqual(step.attempts, ['attempt 1 failed at T1: overloaded', 'attempt 2 failed at T2: timeout']);
});

test('durationOf, stepIcon and stateClass cover every state word', () => {
  const cases: [string | null, string | null, string][] = [
    ['2026-11-30T05:00:00.000Z', '2026-11-30T05:00:00.250Z', '0.25 s'],
    ['2026-11-30T05:00:00.000Z', '2026-11-30T05:00:42.000Z', '42 s'],
    ['2026-11-30T05:00:00.000Z', '2026-11-30T07:05:00.000Z', '2 h 5 min'],
    ['2026-11-30T05:00:00.000Z', null, ''],
    ['later', 'earlier', ''],
  ];
  for (const [start, end, expected] of cases) {
    assert.equal(durationOf(start, end), expected, `${start} ${end}`);
  }
  const icons = STEP_STATES.map(stepIcon);
  assert.equal(new Set(icons).size, STEP_STATES.length, 'one icon per state');
  assert.deepEqual(STEP_STATES.map(stateClass).filter((c) => c.includes(' ')), []);
});

test('filterRuns keeps the runs of a design and a status; progress and undelivered are the server\'s', () => {
  const runs = [
    { run_id: 'a1', name: 'x', status: 'completed', progress: '2/2', step_states: [{ id: 'p', status: 'not delivered' }] },
    { run_id: 'b2', name: 'y', status: 'failed', progress: '-' },
    { run_id: 'c3', name: 'x', status: 'failed' },
  ] as RunSummary[];
  const cases: [RunsFilter, string[], string][] = [
    [{}, ['a1', 'b2', 'c3'], ''],
    [{ design: 'x' }, ['a1', 'c3'], 'design x'],
    [{ status: 'failed' }, ['b2', 'c3'], 'status failed'],
    [{ design: 'x', status: 'failed' }, ['c3'], 'design x, status failed'],
  ];
  for (const [filter, ids, text] of cases) {
    assert.deepEqual(filterRuns(runs, filter).map((r) => r.run_id), ids);
    assert.equal(filterText(filter), text);
  }
  assert.deepEqual(runs.map(progressOf), ['2/2', '', '']);
  assert.deepEqual(runs.map(undeliveredOf), [['p'], [], []]);
});

test('stepDetailMarkdown shows the step\'s facts, context, output and receipts', () => {
  const text = stepDetailMarkdown({
    run_id: 'r1', name: 'flow', run_status: 'completed', has_output: true, output: { draft: 'x' }, duration: '0.01 s',
    context: '{"draft": "x"}',
    step: { id: 'post', type: 'output', status: 'not delivered', label: '⚠ not delivered', error: 'no channel command configured',
      started_at: 'T0', ended_at: 'T1', attempts: [] },
    deliveries: [{ at: 'T1', deliver: 'channel', target: 'slack:#team', key: 'r1:post', ok: false, error: 'no channel command configured' }],
  });
  for (const part of ['# Step `post` (output)', '**⚠ not delivered**', 'no channel command configured', '- started: T0',
    '- ran: 0.01 s', '## Failed attempts (0)', '"draft": "x"', '## Deliveries (1)', 'NOT delivered: no channel command configured']) {
    assert.ok(text.includes(part), part);
  }
  assert.ok(stepDetailMarkdown({}).includes('# Step `?`'));
});

test('stepsOfRun keeps the server\'s titles and kinds', () => {
  const summary = summaryWith('running', [['draft', 'agent', null, { title: 'Draft' }], ['post', 'output', null, { title: null }]]);
  assert.deepEqual(stepsOfRun(undefined, summary).map((s) => [s.id, s.kind, s.title]), [['draft', 'agent', 'Draft'], ['post', 'output', undefined]]);
});

test('previewOf keeps one short line', () => {
  const cases: [unknown, string][] = [
    ['plain text', 'plain text'],
    ['two\n  lines', 'two lines'],
    [{ a: 1 }, '{"a":1}'],
    [0, '0'],
    [false, 'false'],
    ['x'.repeat(100), `${'x'.repeat(79)}…`],
  ];
  for (const [value, expected] of cases) {
    assert.equal(previewOf(value), expected);
  }
});

test('runsOf reads notifications and listRuns answers, newestRunOf picks the first match', () => {
  const runs = [
    { run_id: 'a1', name: 'x', status: 'completed' },
    { run_id: 'b2', name: 'y', status: 'failed' },
    { run_id: 'c3', name: 'x', status: 'running' },
    { junk: true },
  ];
  assert.deepEqual(runsOf({ runs }).map((r) => r.run_id), ['a1', 'b2', 'c3']);
  assert.deepEqual(runsOf(runs).map((r) => r.run_id), ['a1', 'b2', 'c3']);
  assert.deepEqual(runsOf(null), []);
  assert.equal(newestRunOf(runsOf({ runs }), 'x')?.run_id, 'a1');
  assert.equal(newestRunOf(runsOf({ runs }), 'z'), undefined);
});

test('ageOf reads ISO stamps and epoch seconds', () => {
  const now = Date.parse('2026-11-30T05:00:00Z');
  const cases: [string | number | null, string][] = [
    ['2026-11-30T04:59:50.000Z', 'just now'],
    ['2026-11-30T04:50:00.000Z', '10 min ago'],
    [now / 1000 - 7200, '2 h ago'],
    ['not a date', ''],
    [null, ''],
  ];
  for (const [stamp, expected] of cases) {
    assert.equal(ageOf(stamp, now), expected, String(stamp));
  }
});

test('applyRunsChanged: a delta puts changed runs first and drops removed ones; a full list replaces', () => {
  const run = (run_id: string, status = 'completed') => ({ run_id, name: 'x', status }) as RunSummary;
  const list = [run('a1'), run('b2'), run('c3')];
  const ids = (runs: RunSummary[]) => runs.map((r) => `${r.run_id}:${r.status}`);
  const cases: [string, unknown, string[]][] = [
    ['a changed run moves first, once', { changed: [run('c3', 'failed')], removed: [] }, ['c3:failed', 'a1:completed', 'b2:completed']],
    ['a new run comes first', { changed: [run('d4')] }, ['d4:completed', 'a1:completed', 'b2:completed', 'c3:completed']],
    ['a removed run goes', { changed: [], removed: ['b2'] }, ['a1:completed', 'c3:completed']],
    ['a full list replaces', { runs: [run('z9')] }, ['z9:completed']],
    ['junk changes nothing it cannot read', { changed: [{ nope: 1 }], removed: [3] }, ['a1:completed', 'b2:completed', 'c3:completed']],
  ];
  for (const [name, payload, expected] of cases) {
    assert.deepEqual(ids(applyRunsChanged(list, payload)), expected, name);
  }
  const many = Array.from({ length: 300 }, (_, i) => run(`r${i}`));
  assert.equal(applyRunsChanged(list, { changed: many }).length, 200);
});

test('debugEditsOf words each edit of a debug run as a condition names its place', () => {
  const run = {
    run_id: 'abc', name: 'd', status: 'completed', debug_mark: 'debug run: 2 edits by the user',
    debug: { edits: [
      { node: 'review', path: ['verdict'], old: 'approve', new: 'revise by hand' },
      { node: 'draft', old: { text: 'x' }, new: null },
    ] },
  };
  assert.deepEqual(debugEditsOf(run), [
    'out.review.verdict: "approve" → "revise by hand"',
    'out.draft: {"text":"x"} → null',
  ]);
  assert.deepEqual(debugEditsOf({ run_id: 'b', name: 'd', status: 'completed' }), []);
});
