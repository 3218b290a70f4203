/**
 * The quick picks and look-ups the commands share: which run, which design, which
 * step, which answer. They ask the user the least possible and take their facts from
 * the server (run summaries, code lenses), never from copies of its rules.
 */
import * as path from 'path';
import * as vscode from 'vscode';
import { ServerCommand } from '../model/constants';
import { designName, designNodeSpots, nodeIdAt } from '../model/design';
import { errorText, getLog } from './log';
import { ageOf, asRunSummary, RunSummary, statusIcon, statusLabel } from '../model/runModel';
import { RunsModel } from './runs';
import { RunItem, StepItem } from './runsView';
import { ServerManager } from './server';
import { isDesignDocument } from './settings';

export class Pickers {
  constructor(private readonly server: ServerManager, private readonly model: RunsModel) {}

  /** The run a command acts on: from its argument, else the user's pick among `filter`. */
  async run(
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
  async design(uri?: vscode.Uri): Promise<vscode.TextDocument | undefined> {
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

  /**
   * The design a run came from: an open document, a workspace file of that name, else
   * the stored design the server names in the summary (`design_path`).
   */
  async designOf(run: RunSummary): Promise<vscode.TextDocument | undefined> {
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
    const stored = (this.model.find(run.run_id) ?? run).design_path;
    if (stored) {
      return vscode.workspace.openTextDocument(vscode.Uri.file(stored));
    }
    void vscode.window.showWarningMessage(`Hermes Workflow: cannot find the design "${run.name}" in this workspace or in the design store.`);
    return undefined;
  }

  /**
   * The node under the cursor, else the user's pick among the design's steps. The steps
   * are the nodes the server puts a "Run from here" lens on: it decides what a step is.
   */
  async node(document: vscode.TextDocument): Promise<string | undefined> {
    const editor = vscode.window.activeTextEditor;
    const text = document.getText();
    if (editor?.document === document) {
      const here = nodeIdAt(text, document.offsetAt(editor.selection.active));
      if (here) {
        return here;
      }
    }
    const steps = await this.runnableSteps(document);
    const spots = designNodeSpots(text).filter((spot) => steps.has(spot.id));
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

  /** The node ids the server's code lenses offer `hwf.runFromHere` for. */
  private async runnableSteps(document: vscode.TextDocument): Promise<Set<string>> {
    let lenses: vscode.CodeLens[] | undefined;
    try {
      lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', document.uri);
    } catch (error) {
      getLog().warn(`Asking for the code lenses of ${document.uri.toString()}: ${errorText(error)}`);
    }
    const steps = new Set<string>();
    for (const lens of lenses ?? []) {
      const node = lens.command?.command === ServerCommand.runFromHere ? lens.command.arguments?.[1] : undefined;
      if (typeof node === 'string') {
        steps.add(node);
      }
    }
    return steps;
  }

  /** The user's answer to a parked approval, among the options the server resolved. */
  async answer(run: RunSummary): Promise<string | undefined> {
    const options = run.pending?.options ?? [];
    const picked = await vscode.window.showQuickPick(
      options.map((option) => ({ label: option })),
      {
        title: `Approval "${run.pending?.node ?? ''}" · ${run.name} · run ${run.run_id}`,
        placeHolder: run.pending?.question ?? 'Choose an answer',
        ignoreFocusOut: true,
      },
    );
    return picked?.label;
  }

  /** How the user wants to write an agent response: input box, text or JSON document. */
  async responseKind(run: RunSummary): Promise<'input' | 'text' | 'json' | undefined> {
    const picked = await vscode.window.showQuickPick(
      [
        { label: '$(edit) Type a short response', id: 'input' as const },
        { label: '$(markdown) Open a document for long text', id: 'text' as const, detail: 'Write the response, then run "Hermes Workflow: Send Response".' },
        { label: '$(json) Open a JSON document (structured response)', id: 'json' as const, detail: 'The JSON value is sent as the step\'s structured output.' },
      ],
      { title: `Respond to agent step "${run.pending?.node ?? '?'}" · ${run.name} · run ${run.run_id}`, placeHolder: run.pending?.prompt, ignoreFocusOut: true },
    );
    return picked?.id;
  }
}
