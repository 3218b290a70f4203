/**
 * Response documents: untitled editors opened for a long agent response. Each one
 * remembers the run it answers; "Send Response" sends its text (or its JSON, for a
 * structured response) and closes it. The context key lights up the Send command.
 */
import * as vscode from 'vscode';
import { ContextKey } from '../model/constants';
import { errorText } from './log';

/** What a response document answers. */
interface ResponseTarget {
  runId: string;
  structured: boolean;
}

/** The agent response a document holds, as `hwf.respondAgent` takes it. */
export type AgentResponse = { output: string } | { structured: unknown };

export class ResponseDocuments implements vscode.Disposable {
  private readonly targets = new Map<string, ResponseTarget>();
  private readonly disposables: vscode.Disposable[];

  constructor() {
    this.disposables = [
      vscode.window.onDidChangeActiveTextEditor((editor) => this.updateContext(editor)),
      vscode.workspace.onDidCloseTextDocument((doc) => this.targets.delete(doc.uri.toString())),
    ];
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }

  /** Open an empty response document for `runId` and show it. */
  async open(runId: string, structured: boolean): Promise<vscode.TextDocument> {
    const document = await vscode.workspace.openTextDocument({ language: structured ? 'json' : 'markdown', content: '' });
    this.targets.set(document.uri.toString(), { runId, structured });
    await vscode.window.showTextDocument(document);
    this.updateContext(vscode.window.activeTextEditor);
    return document;
  }

  /**
   * Send what `document` holds with `respond(runId, response)`; on success forget and
   * close it. Says why when it is not a response document or its JSON does not parse.
   */
  async send(
    document: vscode.TextDocument | undefined,
    respond: (runId: string, response: AgentResponse) => Promise<unknown>,
  ): Promise<void> {
    const target = document && this.targets.get(document.uri.toString());
    if (!document || !target) {
      void vscode.window.showWarningMessage('Hermes Workflow: this editor is not a response document. Use "Respond to Agent Step" first.');
      return;
    }
    const text = document.getText();
    let response: AgentResponse = { output: text };
    if (target.structured) {
      try {
        response = { structured: JSON.parse(text) };
      } catch (error) {
        void vscode.window.showErrorMessage(`Hermes Workflow: the response is not valid JSON: ${errorText(error)}`);
        return;
      }
    }
    const result = await respond(target.runId, response);
    if (result !== undefined) {
      this.targets.delete(document.uri.toString());
      if (vscode.window.activeTextEditor?.document === document) {
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      }
    }
  }

  private updateContext(editor: vscode.TextEditor | undefined): void {
    const active = editor ? this.targets.has(editor.document.uri.toString()) : false;
    void vscode.commands.executeCommand('setContext', ContextKey.isResponseDocument, active);
  }
}
