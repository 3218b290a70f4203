/**
 * Ctrl+Z / Ctrl+Shift+Z in the canvas, passed to the text document's own undo and redo.
 *
 * VS Code's `undo` and `redo` commands act on whatever has the focus when they run, so
 * each request moves the focus to the text editor, runs the command and gives the focus
 * back to the canvas. Moving a webview's focus is asynchronous (the workbench focuses its
 * frame, then tells the frame to focus its page, a message hop or two later): a redo
 * asked for right after an undo could move the focus to the text editor while the
 * undo's "focus the canvas" was still on its way, which then landed between the two and
 * sent the redo to the canvas, where it does nothing (issue 44: a redo lost after an
 * undo on a loaded machine). So a request ends only when the canvas page says it has the
 * focus again (its window's focus event, posted by the webview), and the focus is asked
 * for once more when the page's frame got it but the page did not. The wait is bounded: a
 * canvas that never gets the focus (hidden, the user clicked elsewhere) delays the next
 * request by `waitMs`, it does not block it.
 */

export type UndoKind = 'undo' | 'redo';

/** What the relay does in the editor (src/vscode/canvas.ts; fakes in the tests). */
export interface UndoSteps {
  /** The design's text editor shown with the focus. */
  focusText(): Promise<void>;
  /** The editor's `undo` or `redo` command. */
  run(which: UndoKind): Promise<void>;
  /** The canvas shown with the focus again. */
  focusCanvas(): void;
  /** A step that failed or waited in vain, for the log. */
  warn(text: string): void;
}

export class UndoRelay {
  /** How many times the canvas page said it got the focus. */
  private focusCount = 0;
  private readonly waiters = new Set<() => void>();
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly steps: UndoSteps, private readonly waitMs = 1000) {}

  /** The canvas page's focus changed (its window's focus and blur events). */
  focusChanged(focused: boolean): void {
    if (focused) {
      this.focusCount += 1;
      [...this.waiters].forEach((wake) => wake());
    }
  }

  /** One request, after the ones before it: three quick Ctrl+Z are three undos. */
  request(which: UndoKind): Promise<void> {
    this.queue = this.queue.then(() => this.once(which)).catch((error) => this.steps.warn(`${which} failed: ${error instanceof Error ? error.message : String(error)}`));
    return this.queue;
  }

  private async once(which: UndoKind): Promise<void> {
    await this.steps.focusText();
    await this.steps.run(which);
    // the next request starts once the canvas page has the focus back, not while it is on its way
    const before = this.focusCount;
    this.steps.focusCanvas();
    if (await this.focusAfter(before, this.waitMs / 2)) {
      return;
    }
    this.steps.focusCanvas(); // the frame focused but not its page: ask once more
    if (!(await this.focusAfter(before, this.waitMs / 2))) {
      this.steps.warn(`${which}: the canvas did not get the focus back within ${this.waitMs} ms`);
    }
  }

  /** True once the page said it got the focus after its `count`th time; false after `ms` without. */
  private focusAfter(count: number, ms: number): Promise<boolean> {
    if (this.focusCount > count) {
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        resolve(false);
      }, ms);
      this.waiters.add(wake);
    });
  }
}
