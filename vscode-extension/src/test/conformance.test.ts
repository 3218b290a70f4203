// One truth about a run (issue 28), on the extension's side: the summaries of the engine's
// fixture runs (tests/support/fixture_runs.py, every step state, written by the Python
// conformance test) rendered by the Runs view's items, the canvas's and the dashboard's
// node model, the status bar's counts and the step detail view; each rendering compared
// with the facts in the summary by one check.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { markdownText, progressOf, RunSummary, STEP_STATES, stepDetailMarkdown, StepSummary, stepsOfRun, undeliveredOf } from '../model/runModel';
import { nodeRuns } from '../model/graphModel';

const FIXTURES: Record<string, RunSummary> = JSON.parse(
  readFileSync(join(process.cwd(), 'src', 'test', 'fixtures', 'run-summaries.json'), 'utf8'),
);

const factsOf = (run: RunSummary) => (run.step_states as StepSummary[]).map((s) => [s.id, s.status, s.label]);

/** Each surface: a fixture run → [step id, state, label] as it shows them. */
const SURFACES: Record<string, (run: RunSummary) => unknown[][]> = {
  'Runs view step items': (run) => stepsOfRun(undefined, run).map((s) => [s.id, s.state, s.label]),
  'canvas / dashboard node model': (run) => [...nodeRuns(run, stepsOfRun(undefined, run))].map(([id, n]) => [id, n.state, n.label]),
  'step detail view': (run) => (run.step_states as StepSummary[]).map((s) => {
    const text = stepDetailMarkdown({ run_id: run.run_id, name: run.name, run_status: run.status, step: s });
    return [s.id, s.status, text.includes(`**${markdownText(s.label)}**`) ? s.label : `missing in: ${text.slice(0, 80)}`];
  }),
};

function check(surface: string, name: string): void {
  const run = FIXTURES[name];
  assert.deepEqual(SURFACES[surface](run), factsOf(run), `${surface} disagrees on ${name}`);
}

test('the fixture runs cover every step state', () => {
  const seen = new Set(Object.values(FIXTURES).flatMap((run) => (run.step_states as StepSummary[]).map((s) => s.status)));
  assert.deepEqual([...seen].sort(), [...STEP_STATES].sort());
});

for (const surface of Object.keys(SURFACES)) {
  test(`${surface} renders the run facts of every fixture run`, () => {
    for (const name of Object.keys(FIXTURES)) {
      check(surface, name);
    }
  });
}

test('status bar and Runs view counts are the summary\'s (progress, not delivered)', () => {
  for (const [name, run] of Object.entries(FIXTURES)) {
    assert.equal(progressOf(run), run.progress === '-' ? '' : run.progress, name);
    const undelivered = (run.step_states as StepSummary[]).filter((s) => s.status === 'not delivered').map((s) => s.id);
    assert.deepEqual(undeliveredOf(run), undelivered, name);
  }
  assert.deepEqual(undeliveredOf(FIXTURES['failed-delivery']), ['post']);
});
