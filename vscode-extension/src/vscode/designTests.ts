/**
 * Design tests in VS Code's Test Explorer (the Testing API): one item per test file
 * (`*.hwf-test.json`), one child per case with its range (a gutter icon on its line).
 * Running asks the language server (`hwf.runDesignTests`, the bundled server: no `hwf`
 * needed) per file, for the cases picked; a failure is a diff message per difference,
 * placed at the `expect` entry that differs; a file that cannot run errors each case at
 * the place its error names. Parsing and the answer's shape: designTestModel.ts.
 */
import * as vscode from 'vscode';
import {
  asDesignTestAnswer,
  CaseSpot,
  errorMessages,
  FailureMessage,
  failureMessages,
  Span,
  TEST_FILE_GLOB,
  TEST_FILE_SUFFIX,
  testCases,
} from '../model/designTestModel';
import { ServerCommand } from '../model/constants';
import { runOutput, shownMessages } from '../model/testOutput';
import { errorText, getLog } from './log';
import { ServerManager } from './server';

const CONTROLLER_ID = 'hwf.designTests';
const EXCLUDE = '**/node_modules/**';

const toRange = (span: Span) => new vscode.Range(span.start.line, span.start.character, span.end.line, span.end.character);

export function isTestFile(uri: vscode.Uri): boolean {
  return uri.scheme === 'file' && uri.path.endsWith(TEST_FILE_SUFFIX);
}

export class DesignTests implements vscode.Disposable {
  private readonly controller = vscode.tests.createTestController(CONTROLLER_ID, 'Hermes Workflow design tests');
  private readonly disposables: vscode.Disposable[] = [this.controller];

  constructor(private readonly server: ServerManager) {
    const controller = this.controller;
    controller.resolveHandler = async (item) => {
      if (!item) {
        await this.discover();
      } else if (item.uri) {
        await this.load(item.uri);
      }
    };
    controller.refreshHandler = () => this.discover();
    controller.createRunProfile('Run', vscode.TestRunProfileKind.Run, (request, token) => this.run(request, token), true);
    const watcher = vscode.workspace.createFileSystemWatcher(TEST_FILE_GLOB);
    this.disposables.push(
      watcher,
      watcher.onDidCreate((uri) => void this.load(uri)),
      watcher.onDidChange((uri) => void this.load(uri)),
      watcher.onDidDelete((uri) => controller.items.delete(uri.toString())),
      vscode.workspace.onDidOpenTextDocument((d) => isTestFile(d.uri) && this.update(d.uri, d.getText())),
      vscode.workspace.onDidChangeTextDocument((e) => isTestFile(e.document.uri) && this.update(e.document.uri, e.document.getText())),
    );
  }

  /** Every test file of the workspace (node_modules left out), its cases listed. */
  async discover(): Promise<void> {
    const files = await vscode.workspace.findFiles(TEST_FILE_GLOB, EXCLUDE);
    const keep = new Set(files.map((uri) => uri.toString()));
    this.controller.items.forEach((item) => !keep.has(item.id) && this.controller.items.delete(item.id));
    await Promise.all(files.map((uri) => this.load(uri)));
  }

  private async load(uri: vscode.Uri): Promise<void> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    try {
      const text = open ? open.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      this.update(uri, text);
    } catch (error) {
      getLog().warn(`Cannot read ${uri.fsPath}: ${errorText(error)}`);
    }
  }

  /**
   * The file's item and its cases, from its current text (ids: the file's URI, the case's
   * name). Items that did not change are left alone: an update marks a test's results
   * outdated, and VS Code then hides its failure in the editor.
   */
  private update(uri: vscode.Uri, text: string): void {
    const id = uri.toString();
    let file = this.controller.items.get(id);
    if (!file) {
      file = this.controller.createTestItem(id, vscode.workspace.asRelativePath(uri), uri);
      this.controller.items.add(file);
    }
    const spots = testCases(text);
    const same = spots.length === file.children.size && spots.every((spot) => file!.children.get(spot.name));
    const cases = spots.map((spot) => this.caseItem(file!, uri, spot));
    if (!same) {
      file.children.replace(cases);
    }
  }

  private caseItem(file: vscode.TestItem, uri: vscode.Uri, spot: CaseSpot): vscode.TestItem {
    const item = file.children.get(spot.name) ?? this.controller.createTestItem(spot.name, spot.name, uri);
    const range = toRange(spot.range);
    if (!item.range?.isEqual(range)) {
      item.range = range;
    }
    return item;
  }

  /** A run: the items picked (else every file), one server request per file. */
  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.controller.createTestRun(request);
    try {
      const byFile = this.picked(request);
      for (const cases of byFile.values()) {
        cases.forEach((item) => run.enqueued(item));
      }
      for (const [file, cases] of byFile) {
        if (token.isCancellationRequested) {
          cases.forEach((item) => run.skipped(item));
          continue;
        }
        const whole = cases.includes(file) || cases.length === file.children.size;
        await this.runFile(run, file, cases, whole ? undefined : cases.map((c) => c.id));
      }
    } finally {
      run.end();
    }
  }

  private picked(request: vscode.TestRunRequest): Map<vscode.TestItem, vscode.TestItem[]> {
    const byFile = new Map<vscode.TestItem, vscode.TestItem[]>();
    const excluded = new Set(request.exclude ?? []);
    const add = (item: vscode.TestItem) => {
      if (excluded.has(item)) {
        return;
      }
      if (!item.parent) {
        const cases: vscode.TestItem[] = [];
        item.children.forEach((c) => !excluded.has(c) && cases.push(c));
        // a file without cases (yet, or it cannot be read as any) reports on itself
        byFile.set(item, [...(byFile.get(item) ?? []), ...(item.children.size === 0 ? [item] : cases)]);
      } else {
        byFile.set(item.parent, [...(byFile.get(item.parent) ?? []), item]);
      }
    };
    if (request.include) {
      request.include.forEach(add);
    } else {
      this.controller.items.forEach(add);
    }
    return byFile;
  }

  private async runFile(run: vscode.TestRun, file: vscode.TestItem, cases: vscode.TestItem[], names: string[] | undefined): Promise<void> {
    const uri = file.uri!;
    cases.forEach((item) => run.started(item));
    let answer;
    try {
      answer = asDesignTestAnswer(await this.server.execute(ServerCommand.runDesignTests, names ? [uri.toString(), names] : [uri.toString()], { quiet: true }));
    } catch (error) {
      const message = new vscode.TestMessage(`${ServerCommand.runDesignTests} failed: ${errorText(error)}`);
      cases.forEach((item) => run.errored(item, message));
      return;
    }
    if (!answer) {
      cases.forEach((item) => run.errored(item, new vscode.TestMessage(`${ServerCommand.runDesignTests}: an answer of an unknown shape`)));
      return;
    }
    if (answer.errors.length > 0) {
      getLog().info(`design tests: ${vscode.workspace.asRelativePath(uri)} cannot run: ${answer.errors.length} error(s)`);
      run.appendOutput(runOutput(vscode.workspace.asRelativePath(uri), answer), undefined, file);
      const messages = errorMessages(answer).flatMap((m) => this.messages(m, uri));
      cases.forEach((item) => run.errored(item, messages));
      return;
    }
    const failed = answer.cases.filter((c) => !c.passed).length;
    getLog().info(`design tests: ${vscode.workspace.asRelativePath(uri)}: ${answer.cases.length - failed} passed, ${failed} failed`);
    run.appendOutput(runOutput(vscode.workspace.asRelativePath(uri), answer), undefined, file);
    for (const item of cases) {
      const outcome = answer.cases.find((c) => c.name === item.id);
      if (!outcome) {
        run.skipped(item);
      } else if (outcome.passed) {
        run.passed(item, outcome.duration * 1000);
      } else {
        run.failed(item, failureMessages(outcome).flatMap((m) => this.messages(m, uri)), outcome.duration * 1000);
      }
    }
  }

  /** A failure's TestMessages: its words at its place, and the diff when it compares values (testOutput.ts). */
  private messages(failure: FailureMessage, uri: vscode.Uri): vscode.TestMessage[] {
    return shownMessages(failure).map((shown) => {
      const message = shown.diff
        ? vscode.TestMessage.diff(shown.text, shown.diff.expected, shown.diff.actual)
        : new vscode.TestMessage(shown.text);
      if (shown.range) {
        message.location = new vscode.Location(uri, toRange(shown.range));
      }
      return message;
    });
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}
