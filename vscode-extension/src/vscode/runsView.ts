/**
 * The Runs view: recent runs with their status, progress and times, and under each run
 * its steps in plan order with what happened to them (the server's run facts: states,
 * labels, reasons, errors, attempts, times) and a preview of their output (read from the
 * run file). Filter by design and status. Context actions act on the run under the cursor.
 */
import * as vscode from 'vscode';
import { ContextKey, RUNS_VIEW_ID, UiCommand } from '../model/constants';
import { errorText, getLog } from './log';
import {
  ageOf,
  debugEditsOf,
  filterRuns,
  filterText,
  progressOf,
  RunsFilter,
  RunSummary,
  stateClass,
  statusColor,
  statusIcon,
  statusLabel,
  StepInfo,
  stepColor,
  stepIcon,
  stepsOfRun,
  undeliveredOf,
} from '../model/runModel';
import { exactTime } from '../model/timeWords';
import { RunsModel } from './runs';

export class RunItem {
  readonly kind = 'run';
  constructor(readonly run: RunSummary) {}
}

export class StepItem {
  readonly kind = 'step';
  constructor(readonly run: RunSummary, readonly step: StepInfo) {}
}

export type RunsTreeItem = RunItem | StepItem;

/** Reads and parses a run file; undefined when it is missing or unreadable. */
export async function readRunFile(run: RunSummary): Promise<unknown> {
  if (!run.path) {
    return undefined;
  }
  try {
    const bytes = await vscode.workspace.fs.readFile(vscode.Uri.file(run.path));
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    getLog().warn(`Reading run file ${run.path}: ${errorText(error)}`);
    return undefined;
  }
}

/** When the run file last changed (ms since the epoch); undefined when it cannot be told. */
export async function runFileMtime(run: RunSummary): Promise<number | undefined> {
  if (!run.path) {
    return undefined;
  }
  try {
    return (await vscode.workspace.fs.stat(vscode.Uri.file(run.path))).mtime;
  } catch {
    return undefined;
  }
}

function runTooltip(run: RunSummary): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown(`**${run.name}** · run \`${run.run_id}\`\n\n`);
  md.appendMarkdown(`$(${statusIcon(run.status).replace('~spin', '')}) ${statusLabel(run.status)}`);
  if (progressOf(run)) {
    md.appendMarkdown(` · ${progressOf(run)} steps finished`);
  }
  md.appendMarkdown('\n\n');
  if (run.created_at) {
    md.appendMarkdown(`Started ${exactTime(run.created_at)} (${ageOf(run.created_at)})`);
  }
  if (run.updated_at) {
    md.appendMarkdown(`${run.created_at ? ' · ' : ''}updated ${exactTime(run.updated_at)} (${ageOf(run.updated_at)})`);
  }
  md.appendMarkdown('\n\n');
  const undelivered = undeliveredOf(run);
  if (undelivered.length) {
    md.appendMarkdown(`$(warning) Not delivered: ${undelivered.map((id) => `\`${id}\``).join(', ')}\n\n`);
  }
  if (run.debug_mark) {
    md.appendMarkdown('$(debug) ');
    md.appendText(run.debug_mark);
    md.appendMarkdown('\n\n');
    for (const edit of debugEditsOf(run)) {
      md.appendMarkdown('- ');
      md.appendText(edit);
      md.appendMarkdown('\n');
    }
    md.appendMarkdown('\n');
  }
  if (run.pending?.question) {
    md.appendMarkdown('Waiting for an answer: ');
    md.appendText(run.pending.question);
    md.appendMarkdown('\n\n');
  } else if (run.status === 'awaiting_agent' && run.pending?.node) {
    md.appendMarkdown(`Waiting for an agent response to step \`${run.pending.node}\`\n\n`);
  }
  if (run.error) {
    md.appendMarkdown('Error: ');
    md.appendText(run.error);
    md.appendMarkdown('\n\n');
  }
  if (run.from_node) {
    md.appendMarkdown(`Run from \`${run.from_node}\`${run.base_run ? `, reusing run \`${run.base_run}\`` : ''}\n\n`);
  }
  if (run.path) {
    md.appendMarkdown('File: ');
    md.appendText(run.path);
  }
  return md;
}

export class RunsTreeProvider implements vscode.TreeDataProvider<RunsTreeItem>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<RunsTreeItem | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly subscription: vscode.Disposable;
  /** Which runs are shown (by design and status); none: every run the server listed. */
  filter: RunsFilter = {};
  readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly model: RunsModel) {
    this.subscription = model.onDidChange(() => this.emitter.fire());
  }

  setFilter(filter: RunsFilter): void {
    this.filter = filter;
    this.emitter.fire();
  }

  getTreeItem(element: RunsTreeItem): vscode.TreeItem {
    return element.kind === 'run' ? this.runTreeItem(element.run) : this.stepTreeItem(element);
  }

  async getChildren(element?: RunsTreeItem): Promise<RunsTreeItem[]> {
    if (!element) {
      return filterRuns(this.model.runs, this.filter).map((run) => new RunItem(run));
    }
    if (element.kind === 'step') {
      return [];
    }
    const file = await readRunFile(element.run);
    return stepsOfRun(file, element.run).map((step) => new StepItem(element.run, step));
  }

  private runTreeItem(run: RunSummary): vscode.TreeItem {
    const item = new vscode.TreeItem(run.name, vscode.TreeItemCollapsibleState.Collapsed);
    // A stable id keeps the run expanded across refreshes; a full refresh re-reads its steps.
    item.id = `run:${run.run_id}`;
    const age = ageOf(run.updated_at);
    const undelivered = undeliveredOf(run).length;
    item.description = [statusLabel(run.status), progressOf(run), undelivered ? `${undelivered} not delivered` : '',
      run.from_node ? `from ${run.from_node}` : '', run.debug_mark ? 'debug' : '', age, run.run_id]
      .filter((part) => part !== '')
      .join(' · ');
    const color = statusColor(run.status);
    item.iconPath = new vscode.ThemeIcon(statusIcon(run.status), color ? new vscode.ThemeColor(color) : undefined);
    item.tooltip = runTooltip(run);
    item.contextValue = `hwfRun:${run.status}`;
    item.accessibilityInformation = { label: `${run.name} run ${run.run_id}: ${statusLabel(run.status)}` };
    return item;
  }

  private stepTreeItem(element: StepItem): vscode.TreeItem {
    const { step, run } = element;
    const item = new vscode.TreeItem(step.title ? `${step.id} — ${step.title}` : step.id, vscode.TreeItemCollapsibleState.None);
    item.id = `step:${run.run_id}:${step.id}`;
    item.description = `${step.label}${step.duration ? ` (${step.duration})` : ''} · ${step.preview}`;
    const color = stepColor(step.state);
    item.iconPath = new vscode.ThemeIcon(stepIcon(step.state), color ? new vscode.ThemeColor(color) : undefined);
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**${step.id}** (${step.kind}) · `);
    md.appendText(step.label);
    md.appendMarkdown('\n\n');
    if (step.times) {
      md.appendText(step.times);
      md.appendMarkdown('\n\n');
    }
    for (const attempt of step.attempts) {
      md.appendText(attempt);
      md.appendMarkdown('\n\n');
    }
    if (step.detail) {
      md.appendCodeblock(step.detail, step.detail.trimStart().startsWith('{') || step.detail.trimStart().startsWith('[') ? 'json' : 'text');
    }
    item.tooltip = md;
    item.accessibilityInformation = { label: `${step.id}: ${step.state}` };
    item.contextValue = `hwfStep:${stateClass(step.state)}`;
    item.command = { command: UiCommand.showStep, title: 'Show Step', arguments: [run.run_id, step.id] };
    return item;
  }

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
    this.disposables.forEach((d) => d.dispose());
  }
}

/** Asks for a design and a status to show (each: any, or one of those in the list). */
async function pickRunsFilter(runs: readonly RunSummary[], current: RunsFilter): Promise<RunsFilter | undefined> {
  const any = '$(list-flat) any';
  const designs = [...new Set(runs.map((r) => r.name))].sort();
  const design = await vscode.window.showQuickPick([any, ...designs], {
    title: 'Show runs of design', placeHolder: current.design ?? 'any design',
  });
  if (design === undefined) {
    return undefined;
  }
  const statuses = ['running', 'awaiting_agent', 'awaiting_approval', 'completed', 'failed', 'cancelled'];
  const status = await vscode.window.showQuickPick(
    [{ label: any, value: '' }, ...statuses.map((s) => ({ label: `$(${statusIcon(s).replace('~spin', '')}) ${statusLabel(s)}`, value: s }))],
    { title: 'Show runs with status', placeHolder: current.status ? statusLabel(current.status) : 'any status' },
  );
  if (status === undefined) {
    return undefined;
  }
  return { design: design === any ? undefined : design, status: status.value || undefined };
}

export function createRunsView(model: RunsModel): { provider: RunsTreeProvider; view: vscode.TreeView<RunsTreeItem> } {
  const provider = new RunsTreeProvider(model);
  const view = vscode.window.createTreeView(RUNS_VIEW_ID, { treeDataProvider: provider, showCollapseAll: true });
  const applyFilter = (filter: RunsFilter) => {
    provider.setFilter(filter);
    view.description = filterText(filter) || undefined;
    void vscode.commands.executeCommand('setContext', ContextKey.runsFiltered, Boolean(filterText(filter)));
  };
  provider.disposables.push(
    vscode.commands.registerCommand(UiCommand.filterRuns, async () => {
      const filter = await pickRunsFilter(model.runs, provider.filter);
      if (filter) {
        applyFilter(filter);
      }
    }),
    vscode.commands.registerCommand(UiCommand.clearRunsFilter, () => applyFilter({})),
  );
  const updateBadge = () => {
    const waiting = model.runs.filter((r) => r.status === 'awaiting_approval' || r.status === 'awaiting_agent').length;
    view.badge = waiting > 0 ? { value: waiting, tooltip: `${waiting} run${waiting === 1 ? '' : 's'} waiting for you` } : undefined;
  };
  model.onDidChange(updateBadge);
  return { provider, view };
}
