import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { stepsOfRun, timesOf, type RunSummary } from '../model/runModel';
import { exactTime, localTime, secondsText } from '../model/timeWords';

const pad = (n: number) => String(n).padStart(2, '0');
const clock = (d: Date) => `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;

test('localTime: the clock today, the day before it otherwise, the year when not this one', () => {
  const stamp = '2026-12-04T18:56:10.281Z';
  const at = new Date(stamp);
  assert.equal(localTime(stamp, at.getTime() + 60_000), clock(at));
  const later = new Date(at.getTime() + 3 * 86_400_000).getTime();
  assert.match(localTime(stamp, later), new RegExp(`^\\d+ \\w{3} ${clock(at)}$`));
  const nextYear = new Date(at.getTime() + 400 * 86_400_000).getTime();
  assert.match(localTime(stamp, nextYear), new RegExp(`^\\d+ \\w{3} 2026 ${clock(at)}$`));
  assert.equal(localTime('junk'), 'junk');
  assert.equal(localTime(undefined), '');
  assert.doesNotMatch(localTime(stamp, later), /T|Z/);
});

test('exactTime: local date, time to the millisecond and the zone', () => {
  assert.match(exactTime('2026-12-04T18:56:10.281Z'), /^2026-12-0[45] \d\d:\d\d:10\.281 \(UTC[+-]\d\d:\d\d\)$/);
});

test('secondsText reads as the server\'s seconds_text', () => {
  const cases: Array<[number, string]> = [[0.25, '0.25 s'], [12.4, '12 s'], [185, '3 min 5 s'], [7500, '2 h 5 min']];
  cases.forEach(([seconds, text]) => assert.equal(secondsText(seconds), text));
});

test('a parked step: the time it ran, the wait as waiting; a waiting step says its words once', () => {
  const step = { id: 'a', status: 'done', started_at: '2026-12-04T18:55:00.000Z', ended_at: '2026-12-04T18:56:15.500Z', waited_s: 75 };
  assert.match(timesOf(step), /\(ran 0\.50 s, waited 1 min 15 s\)$/);
  const summary = {
    run_id: 'r', name: 'd', status: 'awaiting_approval', pending: { question: 'Ship?' },
    step_states: [{ id: 'g', type: 'approval', status: 'waiting', label: '⏸ waiting for approval', waiting_for: 'approval', since: '2026-12-04T18:55:00.000Z' }],
  } as unknown as RunSummary;
  const now = Date.parse('2026-12-04T18:58:00.000Z');
  const [waiting] = stepsOfRun(undefined, summary, now);
  assert.equal(waiting.preview, `Ship? · since ${localTime('2026-12-04T18:55:00.000Z', now)} (3 min ago)`);
  assert.doesNotMatch(`${waiting.label} · ${waiting.preview}`, /waiting.*waiting/);
});
