/**
 * The recent runs, kept in one place for the Runs view and the status bar. Filled
 * by `hwf.listRuns` and kept current by the server's `hwf/runsChanged` notification,
 * which fires whoever wrote the run (this editor, the canvas, chat, cron, the CLI).
 */
import * as vscode from 'vscode';
import { ServerCommand } from '../model/constants';
import { errorText, getLog } from './log';
import { applyRunsChanged, RunSummary, runsOf } from '../model/runModel';
import { ServerManager } from './server';

export class RunsModel implements vscode.Disposable {
  private list: RunSummary[] = [];
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;

  constructor(private readonly server: ServerManager) {}

  get runs(): readonly RunSummary[] {
    return this.list;
  }

  find(runId: string): RunSummary | undefined {
    return this.list.find((run) => run.run_id === runId);
  }

  /** Replace the list (a listRuns answer). */
  set(payload: unknown): void {
    this.list = runsOf(payload);
    this.emitter.fire();
  }

  /** Apply a `hwf/runsChanged` notification: a delta, or a full list to start over from. */
  changed(payload: unknown): void {
    this.list = applyRunsChanged(this.list, payload);
    this.emitter.fire();
  }

  /** Put one fresh summary in (a command's answer) before the next notification. */
  upsert(run: RunSummary): void {
    const rest = this.list.filter((r) => r.run_id !== run.run_id);
    const old = this.list.find((r) => r.run_id === run.run_id);
    this.list = old ? this.list.map((r) => (r.run_id === run.run_id ? run : r)) : [run, ...rest];
    this.emitter.fire();
  }

  async refresh(): Promise<void> {
    if (this.server.state !== 'running') {
      return;
    }
    try {
      this.set(await this.server.execute(ServerCommand.listRuns, [], { quiet: true }));
    } catch (error) {
      getLog().warn(`Listing runs failed: ${errorText(error)}`);
    }
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
