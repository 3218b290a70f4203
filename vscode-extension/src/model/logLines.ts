/**
 * The server's stderr arrives in chunks that split and join lines; the log frames each
 * line with its time and level only when given one line at a time (issue 47: "every
 * line framed the same"). Pure: unit tested.
 */
export class LineBuffer {
  private partial = '';

  /** The complete lines of `chunk` (and what was left of the one before), without their ends. */
  push(chunk: string): string[] {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    return parts;
  }

  /** What is left without a line end (the server exited mid-line). */
  flush(): string[] {
    const rest = this.partial;
    this.partial = '';
    return rest === '' ? [] : [rest];
  }
}

/** The language client's note of a server that exited by itself with code 0: a restart or stop asked for, not an error. */
export function isCleanExit(message: string): boolean {
  return /^Server process exited with code 0\.?$/.test(message);
}
