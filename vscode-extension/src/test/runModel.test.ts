// Unit tests of the pure run model (node --test). Tables of cases, one check each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ageOf,
  applyRunsChanged,
  approvalOptions,
  newestRunOf,
  planOrder,
  previewOf,
  RunSummary,
  runsOf,
  stepsOfRun,
} from '../common/runModel';

const node = (id: string, type: string, after: string[] = [], extra: object = {}) => ({ id, type, after, ...extra });

test('planOrder matches the server plan: stable Kahn order, trigger and notes dropped', () => {
  const cases: [string, object, string[]][] = [
    ['ordered design keeps its order', { nodes: [node('t', 'trigger'), node('a', 'agent', ['t']), node('b', 'output', ['a'])] }, ['a', 'b']],
    ['child listed first waits for its parent', { nodes: [node('b', 'output', ['a']), node('a', 'agent')] }, ['a', 'b']],
    ['ties go to the earlier node', { nodes: [node('x', 'agent'), node('y', 'agent'), node('z', 'output', ['y', 'x'])] }, ['x', 'y', 'z']],
    ['notes and triggers never appear', { nodes: [node('n', 'note'), node('t', 'trigger'), node('c', 'condition', ['t'])] }, ['c']],
    ['a cycle keeps its steps, at the end', { nodes: [node('a', 'agent', ['b']), node('b', 'agent', ['a']), node('c', 'agent')] }, ['c', 'a', 'b']],
    ['not a design', { nodes: 'nope' }, []],
  ];
  for (const [name, design, expected] of cases) {
    assert.deepEqual(planOrder(design).map((s) => s.id), expected, name);
  }
});

const design = {
  name: 'flow',
  nodes: [
    node('start', 'trigger'),
    node('draft', 'agent', ['start'], { title: 'Draft' }),
    node('gate', 'condition', ['draft']),
    node('ok', 'approval', ['gate']),
    node('post', 'output', ['ok']),
  ],
};
const summary: RunSummary = { run_id: 'abc123', name: 'flow', status: 'running' };

test('stepsOfRun tells each step what happened, in plan order', () => {
  const cases: [string, unknown, [string, string, string][]][] = [
    [
      'completed run shows outputs',
      { status: 'completed', design, outputs: { draft: 'hello', gate: true, ok: { choice: 'approve' }, post: { draft: 'hello' } }, answers: { ok: 'approve' } },
      [['draft', 'done', 'hello'], ['gate', 'done', 'true'], ['ok', 'answered', 'answered approve'], ['post', 'done', '{"draft":"hello"}']],
    ],
    [
      'parked approval waits, later steps not run',
      { status: 'awaiting_approval', design, outputs: { draft: 'x', gate: true }, pending: { kind: 'approval', node: 'ok', question: 'Ship?' } },
      [['draft', 'done', 'x'], ['gate', 'done', 'true'], ['ok', 'waiting', 'waiting for an answer: Ship?'], ['post', 'not-run', 'not run yet']],
    ],
    [
      'skipped steps carry the reason from the log',
      { status: 'completed', design, outputs: { draft: 'x' }, skipped: ['gate', 'ok', 'post'], log: [{ node: 'gate', event: 'skipped', detail: 'out.draft.score >= 7 is false' }] },
      [['draft', 'done', 'x'], ['gate', 'skipped', 'out.draft.score >= 7 is false'], ['ok', 'skipped', 'skipped'], ['post', 'skipped', 'skipped']],
    ],
    [
      'failed step shows the error',
      { status: 'failed', design, outputs: {}, log: [{ node: 'draft', event: 'failed', detail: 'agent step draft failed' }] },
      [['draft', 'failed', 'agent step draft failed'], ['gate', 'not-run', 'not run yet'], ['ok', 'not-run', 'not run yet'], ['post', 'not-run', 'not run yet']],
    ],
    [
      'run from here marks upstream outputs as reused',
      { status: 'completed', design, base_run: 'fff000', from_node: 'gate', outputs: { draft: 'old', gate: true, ok: 1, post: 2 } },
      [['draft', 'reused', 'reused from fff000: old'], ['gate', 'done', 'true'], ['ok', 'done', '1'], ['post', 'done', '2']],
    ],
    ['unreadable run file and no step_states give no steps', 'garbage', []],
  ];
  for (const [name, file, expected] of cases) {
    const got = stepsOfRun(file, summary).map((s) => [s.id, s.state, s.preview]);
    assert.deepEqual(got, expected, name);
  }
});

test('without a run file the steps come from the summary\'s step_states', () => {
  const withStates: RunSummary = {
    ...summary,
    step_states: [{ id: 'a', type: 'agent', status: 'done' }, { id: 'b', type: 'output', status: null }, { junk: 1 }],
  };
  assert.deepEqual(stepsOfRun(undefined, withStates).map((s) => [s.id, s.state]), [['a', 'done'], ['b', 'not-run']]);
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

test('approvalOptions falls back to approve/reject', () => {
  const cases: [unknown, string[]][] = [
    [{ options: ['yes', 'no', 'later'] }, ['yes', 'no', 'later']],
    [{ options: [] }, ['approve', 'reject']],
    [{ options: [1, 2] }, ['approve', 'reject']],
    [null, ['approve', 'reject']],
  ];
  for (const [pending, expected] of cases) {
    assert.deepEqual(approvalOptions(pending as never), expected);
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
