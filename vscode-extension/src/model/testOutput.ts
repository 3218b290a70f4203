/**
 * What the Test Results pane says of a design test file's run (issue 47): a line per case,
 * each failure in the server's own words ("status: expected 'failed', got 'completed'").
 * VS Code's terminal-like output wants CRLF. Pure: unit tested.
 */
import type { DesignTestAnswer, FailureMessage } from './designTestModel';
import { errorMessages, failureMessages } from './designTestModel';

function milliseconds(seconds: number): string {
  return `${Math.round(seconds * 1000)} ms`;
}

/** The lines of one file's run, in the cases' order, CRLF-terminated. */
export function runOutput(file: string, answer: DesignTestAnswer): string {
  const lines: string[] = [];
  if (answer.errors.length > 0) {
    lines.push(`${file}: cannot run`);
    errorMessages(answer).forEach((e) => lines.push(`  ${e.message}`));
  } else {
    const failed = answer.cases.filter((c) => !c.passed).length;
    lines.push(`${file}: ${answer.cases.length - failed} passed, ${failed} failed`);
    for (const outcome of answer.cases) {
      lines.push(`  ${outcome.passed ? '✓' : '✗'} ${outcome.name} (${milliseconds(outcome.duration)})`);
      if (!outcome.passed) {
        failureMessages(outcome).forEach((f) => lines.push(`      ${f.message}`));
      }
    }
  }
  return lines.map((line) => `${line}\r\n`).join('');
}

/**
 * A failure as the messages VS Code shows: its words at its place first (VS Code draws one
 * inline message a line, the first: a diff message drawn inline reads "completed !=
 * failed"), then, when it compares values, the diff at the same place, for the peek. (A
 * message without a place is drawn at the test's own line, so the diff needs one too.)
 */
export function shownMessages(failure: FailureMessage): Array<{ text: string; range?: FailureMessage['range']; diff?: { expected: string; actual: string } }> {
  const shown: Array<{ text: string; range?: FailureMessage['range']; diff?: { expected: string; actual: string } }> = [{ text: failure.message, range: failure.range }];
  if (failure.expected !== undefined && failure.actual !== undefined) {
    shown.push({ text: failure.message, range: failure.range, diff: { expected: failure.expected, actual: failure.actual } });
  }
  return shown;
}
