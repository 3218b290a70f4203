/**
 * The step detail as a read-only Markdown document (`hwf-step:` scheme), shown as a
 * preview beside: an untitled document would count as unsaved, and closing it (or the
 * window) would ask the user to save text they never wrote.
 */
import * as vscode from 'vscode';

export const STEP_SCHEME = 'hwf-step';

export class StepDetailDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(STEP_SCHEME, this);

  /** Shows `markdown` as the detail of `stepId` in `runId`, refreshed if it is open already. */
  async show(runId: string, stepId: string, markdown: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: STEP_SCHEME, path: `/${encodeURIComponent(runId)}/${encodeURIComponent(stepId)}.md` });
    this.texts.set(uri.toString(), markdown);
    this.changed.fire(uri);
    const shown = await vscode.commands.executeCommand('markdown.showPreviewToSide', uri).then(() => true, () => false);
    if (!shown) { // no Markdown preview in this host: the text itself, read-only
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true, viewColumn: vscode.ViewColumn.Beside });
    }
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
