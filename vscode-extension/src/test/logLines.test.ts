import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { isCleanExit, LineBuffer } from '../model/logLines';

test('LineBuffer: one line at a time, whatever the chunks', () => {
  const buffer = new LineBuffer();
  const cases: Array<[string, string[]]> = [
    ['2026-12-04 18:00:00 WARNING a: one\n2026-12-04 18:00:01 WARNING', ['2026-12-04 18:00:00 WARNING a: one']],
    [' b: two\r\nthree', ['2026-12-04 18:00:01 WARNING b: two']],
    ['\n\n', ['three', '']],
  ];
  for (const [chunk, lines] of cases) {
    assert.deepEqual(buffer.push(chunk), lines, chunk);
  }
  assert.deepEqual(buffer.flush(), []);
  buffer.push('cut');
  assert.deepEqual(buffer.flush(), ['cut']);
});

test('isCleanExit: code 0 only', () => {
  assert.equal(isCleanExit('Server process exited with code 0.'), true);
  assert.equal(isCleanExit('Server process exited with code 1.'), false);
  assert.equal(isCleanExit('Server process exited with signal SIGTERM.'), false);
});
