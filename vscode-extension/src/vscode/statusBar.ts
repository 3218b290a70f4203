/**
 * Two small indicators: a status bar item with the newest run of the design in the
 * active editor (click: open that run file), and a language status item with the
 * server's state and interpreter (click: the log).
 */
import * as vscode from 'vscode';
import { ContextKey, UiCommand } from '../model/constants';
import { designName } from '../model/design';
import { ageOf, newestRunOf, progressOf, statusIcon, statusLabel, undeliveredOf } from '../model/runModel';
import { RunsModel } from './runs';
import { ServerManager } from './server';
import { designSelector, isDesignDocument } from './settings';

export class RunStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('hwf.runStatus', vscode.StatusBarAlignment.Left, 50);
  private readonly disposables: vscode.Disposable[] = [this.item];

  constructor(private readonly model: RunsModel, private readonly server: ServerManager) {
    this.item.name = 'Hermes Workflow Run';
    this.disposables.push(
      model.onDidChange(() => this.update()),
      vscode.window.onDidChangeActiveTextEditor(() => this.update()),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document === vscode.window.activeTextEditor?.document) {
          this.update();
        }
      }),
      server.onDidChangeState(() => this.update()),
    );
    this.update();
  }

  update(): void {
    const document = vscode.window.activeTextEditor?.document;
    const isDesign = isDesignDocument(document, this.server.settings.designGlobs);
    void vscode.commands.executeCommand('setContext', ContextKey.isDesign, isDesign);
    const name = isDesign && document ? designName(document.getText()) : undefined;
    if (!name) {
      this.item.hide();
      return;
    }
    const run = newestRunOf(this.model.runs, name);
    if (!run) {
      this.item.text = '$(circle-outline) hwf: no runs';
      this.item.tooltip = `No runs of ${name} yet. Click to start one.`;
      this.item.command = { command: UiCommand.startRun, title: 'Start Run', arguments: [document?.uri] };
      this.item.backgroundColor = undefined;
    } else {
      const undelivered = undeliveredOf(run);
      const progress = progressOf(run);
      this.item.text = `$(${statusIcon(run.status)}) hwf: ${statusLabel(run.status)}${progress ? ` ${progress}` : ''}` +
        (undelivered.length ? ` $(warning) ${undelivered.length} not delivered` : '');
      this.item.tooltip = `Newest run of ${name}: ${run.run_id}, ${statusLabel(run.status)}` +
        `${progress ? `, ${progress} steps finished` : ''}` +
        `${undelivered.length ? `; not delivered: ${undelivered.join(', ')}` : ''}` +
        `${run.updated_at ? `, updated ${ageOf(run.updated_at)}` : ''}${run.error ? `\n${run.error}` : ''}\nClick to open the run file.`;
      this.item.command = { command: UiCommand.openRun, title: 'Open Run File', arguments: [run] };
      this.item.backgroundColor = run.status === 'failed'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : run.status.startsWith('awaiting') || undelivered.length
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    }
    this.item.show();
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}

const STATE_TEXT: Record<string, string> = {
  stopped: 'stopped',
  starting: 'starting…',
  running: 'running',
  failed: 'not running',
};

export class ServerStatusItem implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly server: ServerManager) {
    this.item = vscode.languages.createLanguageStatusItem('hwf.server', designSelector(server.settings.designGlobs));
    this.item.name = 'Hermes Workflow Server';
    this.disposables.push(this.item, server.onDidChangeState(() => this.update()));
    this.update();
  }

  update(): void {
    const state = this.server.state;
    this.item.selector = designSelector(this.server.settings.designGlobs);
    this.item.text = `Hermes Workflow: ${STATE_TEXT[state] ?? state}`;
    const python = this.server.interpreter;
    const problem = this.server.interpreterProblem;
    this.item.detail = problem
      ?? (python ? `${python.path}${python.server ? ` (${python.server} hwf-lsp)` : ''}` : undefined);
    this.item.busy = state === 'starting';
    this.item.severity = state === 'failed'
      ? vscode.LanguageStatusSeverity.Error
      : problem ? vscode.LanguageStatusSeverity.Warning : vscode.LanguageStatusSeverity.Information;
    this.item.command = state === 'failed'
      ? { command: UiCommand.restartServer, title: 'Restart' }
      : problem
        ? { command: 'workbench.action.openSettings', title: 'Open Settings', arguments: ['hwf.server.pythonPath'] }
        : { command: UiCommand.showLog, title: 'Show Log' };
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}
