/**
 * The client-side commands. The language client registers the server's own ids
 * (`hwf.startRun`, ...) for code lenses; these wrappers have their own ids
 * (`hwf.ui.*`), find what the server needs (document, node, run, choice) with the
 * pickers (pickers.ts), then send the server command. Long agent responses are
 * written in response documents (responseDocument.ts). Who performs agent steps is
 * chosen in agentChoice.ts.
 */
import * as vscode from 'vscode';
import { AgentChoice } from './agentChoice';
import { NO_AGENT_COMMAND_NOTE } from '../model/agentChoiceModel';
import { ServerCommand, UiCommand } from '../model/constants';
import { getLog } from './log';
import { ACTIVE, asRunSummary, noticesOf, progressOf, RunSummary, statusIcon, statusLabel, StepDetail, stepDetailMarkdown, undeliveredOf } from '../model/runModel';
import { Pickers } from './pickers';
import { ResponseDocuments } from './responseDocument';
import { RunsModel } from './runs';
import { StepItem } from './runsView';
import { ServerManager } from './server';
import { StepDetailDocuments } from './stepDetailDocuments';
import { ensureTrusted } from './trust';

export class Commands implements vscode.Disposable {
  private readonly responses = new ResponseDocuments();
  private readonly stepDetails = new StepDetailDocuments();
  private readonly pick: Pickers;
  private readonly disposables: vscode.Disposable[] = [this.responses, this.stepDetails];

  constructor(private readonly server: ServerManager, private readonly model: RunsModel, private readonly agents: AgentChoice) {
    this.pick = new Pickers(server, model);
    const register = (id: string, handler: (...args: any[]) => unknown) =>
      this.disposables.push(vscode.commands.registerCommand(id, handler));
    register(UiCommand.startRun, (uri?: vscode.Uri) => this.startRun(uri));
    register(UiCommand.runFromHere, (target?: unknown, nodeId?: string) => this.runFromHere(target, nodeId));
    register(UiCommand.answerApproval, (target?: unknown, choice?: string) => this.answerApproval(target, choice));
    register(UiCommand.respondAgent, (target?: unknown) => this.respondAgent(target));
    register(UiCommand.sendResponse, () => this.sendResponse());
    register(UiCommand.cancelRun, (target?: unknown) => this.cancelRun(target));
    register(UiCommand.resumeRun, (target?: unknown) => this.resumeRun(target));
    register(UiCommand.openRun, (target?: unknown, stepId?: string) => this.openRun(target, stepId));
    register(UiCommand.runAgain, (target?: unknown) => this.runAgain(target));
    register(UiCommand.showStep, (runId?: unknown, stepId?: unknown) => this.showStep(runId, stepId));
    register(UiCommand.refreshRuns, () => this.model.refresh());
    register(UiCommand.showLog, () => getLog().show());
    register(UiCommand.restartServer, () => this.server.restart());
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }

  /** Called with every server command's result: keep the runs current, tell the user. */
  report(command: string, result: unknown): void {
    if (command === ServerCommand.listRuns || command === ServerCommand.showStep) {
      return;
    }
    // The server shows its notices (stale upstream, no base run) itself; keep them in the log.
    for (const notice of noticesOf(result)) {
      getLog().info(`${command}: ${notice}`);
    }
    const run = asRunSummary(result);
    if (!run) {
      return;
    }
    this.model.upsert(run);
    void this.model.refresh();
    const label = `Run ${run.run_id} of ${run.name}`;
    // Toasts only for what needs the user (a parked run, a failure); the rest goes to the
    // status bar, the Runs view and the status item.
    switch (run.status) {
      case 'failed':
        void this.offer(vscode.window.showErrorMessage(`${label} failed: ${run.error ?? 'see the run file'}`, 'Open Run'), run);
        break;
      case 'awaiting_approval':
        void this.offer(
          vscode.window.showInformationMessage(`${label} is waiting for approval: ${run.pending?.question ?? ''}`, 'Answer', 'Open Run'),
          run,
        );
        break;
      case 'awaiting_agent':
        void this.awaitingAgent(run, label);
        break;
      default:
        vscode.window.setStatusBarMessage(`$(${statusIcon(run.status).replace('~spin', '')}) ${label}: ${statusLabel(run.status)}` +
          `${progressOf(run) ? ` ${progressOf(run)}` : ''}${undeliveredOf(run).length ? ` · ${undeliveredOf(run).length} not delivered` : ''}`, 8000);
    }
  }

  /**
   * A run parked at an agent step. With no agent command set and `hermes` on PATH, the
   * user is offered their Hermes model once (agentChoice.ts) instead of the usual notice:
   * taking it resumes this run, whose step the model then performs; "Respond by hand"
   * opens the response for it.
   */
  private async awaitingAgent(run: RunSummary, label: string): Promise<void> {
    const step = run.pending?.node ?? '?';
    const offered = await this.agents.offerHermes(label, step);
    if (offered === 'hermes') {
      return this.resumeRun(run);
    }
    if (offered === 'byHand') {
      return this.respondAgent(run);
    }
    if (offered === 'dismissed') {
      return;
    }
    await this.offer(
      vscode.window.showInformationMessage(
        `${label} is waiting for an agent response to step "${step}"` +
          (this.server.settings.agentCommand.length === 0 ? NO_AGENT_COMMAND_NOTE : '.'),
        'Respond',
        'Open Run',
      ),
      run,
    );
  }

  private async offer(choice: Thenable<string | undefined>, run: RunSummary): Promise<void> {
    const picked = await choice;
    if (picked === 'Answer' || picked === 'Respond') {
      // the notice may be older than the run's news: a run cancelled or finished since waits for nothing
      await this.model.refresh();
      const now = this.model.find(run.run_id);
      if (now && !ACTIVE.has(now.status)) {
        void vscode.window.showInformationMessage(`Run ${run.run_id} of ${run.name} is ${statusLabel(now.status)} now: there is nothing to ${picked === 'Answer' ? 'answer' : 'respond to'}.`);
        return;
      }
    }
    switch (picked) {
      case 'Open Run':
        return this.openRun(run);
      case 'Answer':
        return this.answerApproval(run);
      case 'Respond':
        return this.respondAgent(run);
      default:
    }
  }

  /**
   * Code lenses send the server's own commands. Where the client has a better UI for
   * the same thing, it takes over: "Answer…" (no choice yet) gets the quick pick of
   * options, "Respond…" (no response yet) the response picker, and "last run …" (a
   * listRuns lens) shows the Runs view.
   */
  async takeOver(command: string, args: unknown[]): Promise<boolean> {
    if (command === ServerCommand.answerApproval && args.length === 1 && typeof args[0] === 'string') {
      await this.answerApproval(args[0]);
      return true;
    }
    if (command === ServerCommand.respondAgent && args.length === 1 && typeof args[0] === 'string') {
      await this.respondAgent(args[0]);
      return true;
    }
    if (command === ServerCommand.showStep) {
      await this.showStep(args[0], args[1]);
      return true;
    }
    if (command === ServerCommand.listRuns) {
      await this.model.refresh();
      await vscode.commands.executeCommand('hwf.runs.focus');
      return true;
    }
    return false;
  }

  private async send(command: string, args: unknown[]): Promise<unknown> {
    try {
      return await this.server.execute(command, args);
    } catch {
      return undefined; // logged and shown by ServerManager
    }
  }

  // --- runs of a design ------------------------------------------------

  async startRun(uri?: vscode.Uri): Promise<void> {
    if (!ensureTrusted()) {
      return;
    }
    const document = await this.pick.design(uri);
    if (!document) {
      return;
    }
    await this.send(ServerCommand.startRun, [document.uri.toString()]);
  }

  async runFromHere(target?: unknown, nodeId?: string): Promise<void> {
    if (!ensureTrusted()) {
      return;
    }
    let document: vscode.TextDocument | undefined;
    let node = nodeId;
    if (target instanceof StepItem) {
      document = await this.pick.designOf(target.run);
      node = target.step.id;
    } else {
      document = await this.pick.design(target instanceof vscode.Uri ? target : undefined);
    }
    if (!document) {
      return;
    }
    if (!node) {
      node = await this.pick.node(document);
    }
    if (!node) {
      return;
    }
    await this.send(ServerCommand.runFromHere, [document.uri.toString(), node]);
  }

  async runAgain(target?: unknown): Promise<void> {
    const run = await this.pick.run(target, 'Run which run again?', () => true);
    if (!run || !ensureTrusted()) {
      return;
    }
    const document = await this.pick.designOf(run);
    if (!document) {
      return;
    }
    if (run.from_node) {
      await this.send(ServerCommand.runFromHere, [document.uri.toString(), run.from_node]);
    } else {
      await this.send(ServerCommand.startRun, [document.uri.toString()]);
    }
  }

  // --- parked runs ------------------------------------------------------

  async answerApproval(target?: unknown, choice?: string): Promise<void> {
    if (!ensureTrusted()) {
      return;
    }
    const run = await this.pick.run(target, 'Answer which approval?', (r) => r.status === 'awaiting_approval', true);
    if (!run) {
      return;
    }
    const answer = choice ?? (await this.pick.answer(run));
    if (answer === undefined) {
      return;
    }
    await this.send(ServerCommand.answerApproval, [run.run_id, answer]);
  }

  async respondAgent(target?: unknown): Promise<void> {
    if (!ensureTrusted()) {
      return;
    }
    const run = await this.pick.run(target, 'Respond to which agent step?', (r) => r.status === 'awaiting_agent', true);
    if (!run) {
      return;
    }
    const step = run.pending?.node ?? '?';
    const how = await this.pick.responseKind(run);
    if (how === undefined) {
      return;
    }
    if (how === 'input') {
      const text = await vscode.window.showInputBox({
        title: `Response for agent step "${step}"`,
        prompt: run.pending?.prompt,
        placeHolder: 'The step\'s output',
        ignoreFocusOut: true,
      });
      if (text !== undefined) {
        await this.send(ServerCommand.respondAgent, [run.run_id, { output: text }]);
      }
      return;
    }
    const document = await this.responses.open(run.run_id, how === 'json');
    const sent = await vscode.window.showInformationMessage(
      `Write the response for step "${step}" of run ${run.run_id}, then click Send (or run "Hermes Workflow: Send Response").`,
      'Send',
    );
    if (sent === 'Send') {
      await this.sendResponse(document);
    }
  }

  async sendResponse(document: vscode.TextDocument | undefined = vscode.window.activeTextEditor?.document): Promise<void> {
    await this.responses.send(document, (runId, response) => this.send(ServerCommand.respondAgent, [runId, response]));
  }

  async resumeRun(target?: unknown): Promise<void> {
    if (!ensureTrusted()) {
      return;
    }
    const run = await this.pick.run(target, 'Resume which run?', (r) => ACTIVE.has(r.status));
    if (run) {
      await this.send(ServerCommand.resumeRun, [run.run_id]);
    }
  }

  async cancelRun(target?: unknown): Promise<void> {
    if (!ensureTrusted()) {
      return;
    }
    const run = await this.pick.run(target, 'Cancel which run?', (r) => ACTIVE.has(r.status));
    if (!run) {
      return;
    }
    // "Keep Running" is the dialog's close affordance: no second "Cancel" beside "Cancel Run"
    const confirm = await vscode.window.showWarningMessage(
      `Cancel run ${run.run_id} of ${run.name} (${statusLabel(run.status)})?`,
      { modal: true, detail: 'The run stops before its next step. It cannot be resumed.' },
      { title: 'Cancel Run' },
      { title: 'Keep Running', isCloseAffordance: true },
    );
    if (confirm?.title === 'Cancel Run') {
      await this.send(ServerCommand.cancelRun, [run.run_id]);
    }
  }

  /** The step detail view: the server's `hwf.showStep` answer, as a Markdown preview beside. */
  async showStep(runId: unknown, stepId: unknown): Promise<void> {
    if (typeof runId !== 'string' || typeof stepId !== 'string') {
      return;
    }
    const detail = await this.send(ServerCommand.showStep, [runId, stepId]);
    if (!detail || typeof detail !== 'object') {
      return;
    }
    await this.stepDetails.show(runId, stepId, stepDetailMarkdown(detail as StepDetail));
  }

  async openRun(target?: unknown, stepId?: string): Promise<void> {
    const run = await this.pick.run(target, 'Open which run?', () => true);
    if (!run) {
      return;
    }
    if (!run.path) {
      void vscode.window.showWarningMessage(`Hermes Workflow: run ${run.run_id} has no file path.`);
      return;
    }
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(run.path));
    const editor = await vscode.window.showTextDocument(document, { preview: true });
    if (stepId) {
      const text = document.getText();
      const outputs = text.indexOf('"outputs"');
      const at = text.indexOf(JSON.stringify(stepId), outputs >= 0 ? outputs : 0);
      if (at >= 0) {
        const start = document.positionAt(at);
        const end = document.positionAt(at + JSON.stringify(stepId).length);
        editor.selection = new vscode.Selection(start, end);
        editor.revealRange(new vscode.Range(start, end), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
    }
  }
}
