// A webview message acts only on a run of its panel's design (issue 45, an earlier round's
// failure): answer, respond and cancel name a run id, and the extension sent whatever id
// the message held to the server. `foreignRun` is the check `canvas.ts` makes first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foreignRun } from '../model/canvasModel';

test('a request naming a run of another design, or an unknown run, is refused', () => {
  const cases: [{ action: string; runId?: string }, string | null | undefined, boolean][] = [
    [{ action: 'start' }, undefined, true],
    [{ action: 'fromHere' }, undefined, true],
    [{ action: 'cancel', runId: 'r1' }, 'flow', true],
    [{ action: 'answer', runId: 'r1' }, 'flow', true],
    [{ action: 'cancel', runId: 'r2' }, 'other', false],
    [{ action: 'respond', runId: 'r2' }, 'other', false],
    [{ action: 'cancel', runId: 'r3' }, undefined, false],
    [{ action: 'cancel', runId: 'r4' }, null, false],
  ];
  for (const [request, runName, allowed] of cases) {
    const why = foreignRun(request, runName, 'flow');
    assert.equal(why === undefined, allowed, `${JSON.stringify(request)} of ${runName}: ${why}`);
    if (!allowed) {
      assert.match(why!, new RegExp(request.runId!));
    }
  }
});
