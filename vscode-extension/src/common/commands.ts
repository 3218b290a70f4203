/**
 * The client-side commands. The language client registers the server's own ids
 * (`hwf.startRun`, ...) for code lenses; these wrappers have their own ids
 * (`hwf.ui.*`), find what the server needs (document, node, run, choice) by asking
 * the user the least possible, then send the server command.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { ContextKey, ServerCommand, UiCommand } from './constants';
import { designName, designNodeSpots, nodeIdAt } from './design';
import { errorText, getLog } from './log';
import {
  ACTIVE,
  approvalOptions,
  asRunSummary,
  noticesOf,
  RunSummary,
  statusIcon,
  statusLabel,
  ageOf,
} from './runModel';
import { RunsModel } from './runs';
import { RunItem, StepItem } from './runsView';
import { ServerManager } from './server';
import { isDesignDocument } from './settings';
import { ensureTrusted } from './trust';

const STEP_KINDS = new Set(['agent', 'condition', 'approval', 'output']);

/** Untitled documents opened for a long agent response, by URI: which run they answer. */
interface ResponseDocument {
  runId: string;
  structured: boolean;
}

export class Commands implements vscode.Disposable {
  private readonly responseDocuments = new Map<string, ResponseDocument>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly server: ServerManager, private readonly model: RunsModel) {
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
    register(UiCommand.refreshRuns, () => this.model.refresh());
    register(UiCommand.showLog, () => getLog().show());
    register(UiCommand.restartServer, () => this.server.restart());
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor((editor) => this.updateResponseContext(editor)),
      vscode.workspace.onDidCloseTextDocument((doc) => this.responseDocuments.delete(doc.uri.toString())),
    );
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }

  /** Called with every server command's result: keep the runs current, tell the user. */
  report(command: string, result: unknown): void {
    if (command === ServerCommand.listRuns) {
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
        void this.offer(
          vscode.window.showInformationMessage(
            `${label} is waiting for an agent response to step "${run.pending?.node ?? '?'}"` +
              (this.server.settings.agentCommand.length === 0 ? ' (no agent command is set: hwf.agent.command).' : '.'),
            'Respond',
            'Open Run',
          ),
          run,
        );
        break;
      default:
        vscode.window.setStatusBarMessage(`$(${statusIcon(run.status).replace('~spin', '')}) ${label}: ${statusLabel(run.status)}`, 8000);
    }
  }

  private async offer(choice: Thenable<string | undefined>, run: RunSummary): Promise<void> {
    switch (await choice) {
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
    const document = await this.designDocument(uri);
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
      document = await this.openDesignOf(target.run);
      node = target.step.id;
    } else {
      document = await this.designDocument(target instanceof vscode.Uri ? target : undefined);
    }
    if (!document) {
      return;
    }
    if (!node) {
      node = await this.pickNode(document);
    }
    if (!node) {
      return;
    }
    await this.send(ServerCommand.runFromHere, [document.uri.toString(), node]);
  }

  async runAgain(target?: unknown): Promise<void> {
    const run = await this.runFrom(target, 'Run which run again?', () => true);
    if (!run || !ensureTrusted()) {
      return;
    }
    const document = await this.openDesignOf(run);
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
    const run = await this.runFrom(target, 'Answer which approval?', (r) => r.status === 'awaiting_approval', true);
    if (!run) {
      return;
    }
    const answer = choice ?? (await this.pickAnswer(run));
    if (answer === undefined) {
      return;
    }
    await this.send(ServerCommand.answerApproval, [run.run_id, answer]);
  }

  private async pickAnswer(run: RunSummary): Promise<string | undefined> {
    const question = run.pending?.question ?? 'Choose an answer';
    const items = approvalOptions(run.pending).map((option) => ({ label: option }));
    const picked = await vscode.window.showQuickPick(items, {
      title: `Approval "${run.pending?.node ?? ''}" · ${run.name} · run ${run.run_id}`,
      placeHolder: question,
      ignoreFocusOut: true,
    });
    return picked?.label;
  }

  async respondAgent(target?: unknown): Promise<void> {
    if (!ensureTrusted()) {
      return;
    }
    const run = await this.runFrom(target, 'Respond to which agent step?', (r) => r.status === 'awaiting_agent', true);
    if (!run) {
      return;
    }
    const step = run.pending?.node ?? '?';
    const how = await vscode.window.showQuickPick(
      [
        { label: '$(edit) Type a short response', id: 'input' },
        { label: '$(markdown) Open a document for long text', id: 'text', detail: 'Write the response, then run "Hermes Workflow: Send Response".' },
        { label: '$(json) Open a JSON document (structured response)', id: 'json', detail: 'The JSON value is sent as the step\'s structured output.' },
      ],
      { title: `Respond to agent step "${step}" · ${run.name} · run ${run.run_id}`, placeHolder: run.pending?.prompt, ignoreFocusOut: true },
    );
    if (!how) {
      return;
    }
    if (how.id === 'input') {
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
    const structured = how.id === 'json';
    const document = await vscode.workspace.openTextDocument({ language: structured ? 'json' : 'markdown', content: '' });
    this.responseDocuments.set(document.uri.toString(), { runId: run.run_id, structured });
    await vscode.window.showTextDocument(document);
    this.updateResponseContext(vscode.window.activeTextEditor);
    const sent = await vscode.window.showInformationMessage(
      `Write the response for step "${step}" of run ${run.run_id}, then click Send (or run "Hermes Workflow: Send Response").`,
      'Send',
    );
    if (sent === 'Send') {
      await this.sendResponse(document);
    }
  }

  async sendResponse(document: vscode.TextDocument | undefined = vscode.window.activeTextEditor?.document): Promise<void> {
    const target = document && this.responseDocuments.get(document.uri.toString());
    if (!document || !target) {
      void vscode.window.showWarningMessage('Hermes Workflow: this editor is not a response document. Use "Respond to Agent Step" first.');
      return;
    }
    const text = document.getText();
    let response: { output: string } | { structured: unknown } = { output: text };
    if (target.structured) {
      try {
        response = { structured: JSON.parse(text) };
      } catch (error) {
        void vscode.window.showErrorMessage(`Hermes Workflow: the response is not valid JSON: ${errorText(error)}`);
        return;
      }
    }
    const result = await this.send(ServerCommand.respondAgent, [target.runId, response]);
    if (result !== undefined) {
      this.responseDocuments.delete(document.uri.toString());
      if (vscode.window.activeTextEditor?.document === document) {
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      }
    }
  }

  private updateResponseContext(editor: vscode.TextEditor | undefined): void {
    const active = editor ? this.responseDocuments.has(editor.document.uri.toString()) : false;
    void vscode.commands.executeCommand('setContext', ContextKey.isResponseDocument, active);
  }

  async resumeRun(target?: unknown): Promise<void> {
    if (!ensureTrusted()) {
      return;
    }
    const run = await this.runFrom(target, 'Resume which run?', (r) => ACTIVE.has(r.status));
    if (run) {
      await this.send(ServerCommand.resumeRun, [run.run_id]);
    }
  }

  async cancelRun(target?: unknown): Promise<void> {
    if (!ensureTrusted()) {
      return;
    }
    const run = await this.runFrom(target, 'Cancel which run?', (r) => ACTIVE.has(r.status));
    if (!run) {
      return;
    }
    const confirm = await vscode.window.showWarningMessage(
      `Cancel run ${run.run_id} of ${run.name} (${statusLabel(run.status)})?`,
      { modal: true, detail: 'The run stops before its next step. It cannot be resumed.' },
      'Cancel Run',
    );
    if (confirm === 'Cancel Run') {
      await this.send(ServerCommand.cancelRun, [run.run_id]);
    }
  }

  async openRun(target?: unknown, stepId?: string): Promise<void> {
    const run = await this.runFrom(target, 'Open which run?', () => true);
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

  // --- finding things ---------------------------------------------------

  /** The run a command acts on: from its argument, else the user's pick among `filter`. */
  private async runFrom(
    target: unknown,
    title: string,
    filter: (run: RunSummary) => boolean,
    autoPickSingle = false,
  ): Promise<RunSummary | undefined> {
    if (target instanceof RunItem || target instanceof StepItem) {
      return this.model.find(target.run.run_id) ?? target.run;
    }
    const given = asRunSummary(target);
    if (given) {
      return this.model.find(given.run_id) ?? given;
    }
    if (typeof target === 'string') {
      await this.model.refresh();
      return this.model.find(target) ?? { run_id: target, name: target, status: 'unknown' };
    }
    await this.model.refresh();
    const candidates = this.model.runs.filter(filter);
    if (candidates.length === 0) {
      void vscode.window.showInformationMessage(`Hermes Workflow: no run to choose from (${title.replace(/\?$/, '').toLowerCase()}).`);
      return undefined;
    }
    if (candidates.length === 1 && autoPickSingle) {
      return candidates[0];
    }
    const picked = await vscode.window.showQuickPick(
      candidates.map((run) => ({
        label: `$(${statusIcon(run.status).replace('~spin', '')}) ${run.name}`,
        description: `${statusLabel(run.status)} · ${run.run_id}`,
        detail: run.pending?.question ?? run.error ?? (run.updated_at ? `updated ${ageOf(run.updated_at)}` : undefined),
        run,
      })),
      { title, placeHolder: 'Runs, newest first', matchOnDescription: true, ignoreFocusOut: true },
    );
    return picked?.run;
  }

  /** The design to run: the given one, the active editor's, else the user's pick. */
  private async designDocument(uri?: vscode.Uri): Promise<vscode.TextDocument | undefined> {
    const globs = this.server.settings.designGlobs;
    if (uri) {
      return vscode.workspace.openTextDocument(uri);
    }
    const active = vscode.window.activeTextEditor?.document;
    if (isDesignDocument(active, globs)) {
      return active;
    }
    const files = await this.designFiles();
    if (files.length === 0) {
      void vscode.window.showInformationMessage(
        `Hermes Workflow: no design in this workspace. Designs are JSON files matching ${globs.join(', ')} (setting hwf.designs.globs).`,
      );
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      files.map((file) => ({ label: path.basename(file.fsPath), description: vscode.workspace.asRelativePath(file), file })),
      { title: 'Run which design?', ignoreFocusOut: true },
    );
    return picked ? vscode.workspace.openTextDocument(picked.file) : undefined;
  }

  private async designFiles(): Promise<vscode.Uri[]> {
    const found = new Map<string, vscode.Uri>();
    for (const glob of this.server.settings.designGlobs) {
      for (const uri of await vscode.workspace.findFiles(glob, '**/node_modules/**', 500)) {
        found.set(uri.toString(), uri);
      }
    }
    return [...found.values()].sort((a, b) => a.fsPath.localeCompare(b.fsPath));
  }

  /** The design a run came from: an open document, a workspace file, else the store's copy. */
  private async openDesignOf(run: RunSummary): Promise<vscode.TextDocument | undefined> {
    const globs = this.server.settings.designGlobs;
    const open = vscode.workspace.textDocuments.find((d) => isDesignDocument(d, globs) && designName(d.getText()) === run.name);
    if (open) {
      return open;
    }
    for (const file of await this.designFiles()) {
      try {
        const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
        if (designName(text) === run.name) {
          return vscode.workspace.openTextDocument(file);
        }
      } catch (error) {
        getLog().warn(`Reading ${file.fsPath}: ${errorText(error)}`);
      }
    }
    const home = this.server.settings.hermesHome || process.env.HERMES_HOME || path.join(os.homedir(), '.hermes');
    const stored = path.join(home, 'workflow-designs', `${run.name}.json`);
    if (fs.existsSync(stored)) {
      return vscode.workspace.openTextDocument(vscode.Uri.file(stored));
    }
    void vscode.window.showWarningMessage(`Hermes Workflow: cannot find the design "${run.name}" in this workspace or in ${home}/workflow-designs.`);
    return undefined;
  }

  /** The node under the cursor, else the user's pick among the design's steps. */
  private async pickNode(document: vscode.TextDocument): Promise<string | undefined> {
    const editor = vscode.window.activeTextEditor;
    const text = document.getText();
    if (editor?.document === document) {
      const here = nodeIdAt(text, document.offsetAt(editor.selection.active));
      if (here) {
        return here;
      }
    }
    const spots = designNodeSpots(text).filter((spot) => spot.type && STEP_KINDS.has(spot.type));
    if (spots.length === 0) {
      void vscode.window.showInformationMessage('Hermes Workflow: this design has no step to run from.');
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      spots.map((spot) => ({ label: spot.id, description: [spot.type, spot.title].filter(Boolean).join(' · '), id: spot.id })),
      { title: 'Run from which step?', placeHolder: 'The step and everything downstream of it run again', ignoreFocusOut: true },
    );
    return picked?.id;
  }
}
