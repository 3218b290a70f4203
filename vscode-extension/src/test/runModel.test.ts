// Unit tests of the pure run model (node --test). Tables of cases, one check each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ageOf,
  applyRunsChanged,
  newestRunOf,
  previewOf,
  RunSummary,
  runsOf,
  stepsOfRun,
} from '../common/runModel';

type Status = string | null;
/** A summary whose step_states are the server's: [id, type, status, extra]. */
const summaryWith = (status: string, steps: [string, string, Status, object?][], extra: object = {}): RunSummary => ({
  run_id: 'abc123',
  name: 'flow',
  status,
  step_states: steps.map(([id, type, s, more]) => ({ id, type, status: s, ...more })),
  ...extra,
});
const FLOW: [string, string][] = [['draft', 'agent'], ['gate', 'condition'], ['ok', 'approval'], ['post', 'output']];
const flow = (...statuses: Status[]): [string, string, Status][] => FLOW.map(([id, type], i) => [id, type, statuses[i]]);

test('stepsOfRun renders the server\'s step states, previews from the run file', () => {
  const cases: [string, RunSummary, unknown, [string, string, string][]][] = [
    [
      'completed run shows outputs; an answered approval its answer',
      summaryWith('completed', [['draft', 'agent', 'done'], ['gate', 'condition', 'done'], ['ok', 'approval', 'answered', { answer: 'approve' }], ['post', 'output', 'done']]),
      { outputs: { draft: 'hello', gate: true, ok: { choice: 'approve' }, post: { draft: 'hello' } } },
      [['draft', 'done', 'hello'], ['gate', 'done', 'true'], ['ok', 'answered', 'answered approve'], ['post', 'done', '{"draft":"hello"}']],
    ],
    [
      'parked approval waits, later steps not run',
      summaryWith('awaiting_approval', flow('done', 'done', 'waiting', null), { pending: { kind: 'approval', node: 'ok', question: 'Ship?', options: ['approve', 'reject'] } }),
      { outputs: { draft: 'x', gate: true } },
      [['draft', 'done', 'x'], ['gate', 'done', 'true'], ['ok', 'waiting', 'waiting for an answer: Ship?'], ['post', 'not-run', 'not run yet']],
    ],
    [
      'skipped steps carry the reason from the log',
      summaryWith('completed', flow('done', 'skipped', 'skipped', 'skipped')),
      { outputs: { draft: 'x' }, log: [{ node: 'gate', event: 'skipped', detail: 'out.draft.score >= 7 is false' }] },
      [['draft', 'done', 'x'], ['gate', 'skipped', 'out.draft.score >= 7 is false'], ['ok', 'skipped', 'skipped'], ['post', 'skipped', 'skipped']],
    ],
    [
      'failed step shows the error from the log, else the summary\'s',
      summaryWith('failed', flow('failed', null, null, null), { error: 'summary error' }),
      { outputs: {}, log: [{ node: 'draft', event: 'failed', detail: 'agent step draft failed' }] },
      [['draft', 'failed', 'agent step draft failed'], ['gate', 'not-run', 'not run yet'], ['ok', 'not-run', 'not run yet'], ['post', 'not-run', 'not run yet']],
    ],
    [
      'run from here: reused steps name the base run',
      summaryWith('completed', [['draft', 'agent', 'reused', { rerun: false }], ['gate', 'condition', 'done', { rerun: true }]], { base_run: 'fff000', from_node: 'gate' }),
      { outputs: { draft: 'old', gate: true } },
      [['draft', 'reused', 'reused from fff000: old'], ['gate', 'done', 'true']],
    ],
    [
      'cancelled run: the rest did not run',
      summaryWith('cancelled', flow('done', null, null, null)),
      { outputs: { draft: 'x' } },
      [['draft', 'done', 'x'], ['gate', 'not-run', 'not run (cancelled)'], ['ok', 'not-run', 'not run (cancelled)'], ['post', 'not-run', 'not run (cancelled)']],
    ],
    [
      'no run file: the previews are the states; junk entries and unknown statuses',
      summaryWith('running', [['a', 'agent', 'done'], ['b', 'output', 'bogus']], { step_states: [{ id: 'a', type: 'agent', status: 'done' }, { id: 'b', type: 'output', status: 'bogus' }, { junk: 1 }] }),
      undefined,
      [['a', 'done', 'done'], ['b', 'not-run', 'not run yet']],
    ],
    ['no step_states, no steps (whatever the run file holds)', summaryWith('running', [], { step_states: 'junk' }), { outputs: { a: 1 } }, []],
  ];
  for (const [name, summary, file, expected] of cases) {
    const got = stepsOfRun(file, summary).map((s) => [s.id, s.state, s.preview]);
    assert.deepEqual(got, expected, name);
  }
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
