/**
 * One quiet offer for a JSON file outside the design globs that looks like a design:
 * "Treat files like this as Hermes Workflow designs?" Yes adds the glob to the
 * workspace's `hwf.designs.globs` (applied at once: the server restarts on it); Never
 * is remembered in the workspace state; dismissed, it is not asked again this session.
 * The setting is only ever written on the user's answer (in Restricted Mode too).
 */
import * as vscode from 'vscode';
import { globForFilesLike, looksLikeDesign } from '../model/designOffer';
import { CONFIG_SECTION, isDesignDocument } from './settings';
import { getLog } from './log';

const NEVER_KEY = 'hwf.designOffer.never';

export class DesignOffer implements vscode.Disposable {
  private readonly asked = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly state: vscode.Memento, private readonly globs: () => readonly string[]) {
    this.disposables.push(vscode.workspace.onDidOpenTextDocument((d) => void this.consider(d)));
    vscode.workspace.textDocuments.forEach((d) => void this.consider(d));
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }

  async consider(document: vscode.TextDocument): Promise<void> {
    if (document.uri.scheme !== 'file' || !['json', 'jsonc'].includes(document.languageId)
        || !vscode.workspace.getWorkspaceFolder(document.uri) || isDesignDocument(document, this.globs())) {
      return;
    }
    const relative = vscode.workspace.asRelativePath(document.uri, false);
    const glob = globForFilesLike(relative);
    const never = this.state.get<string[]>(NEVER_KEY, []);
    if (this.asked.has(glob) || never.includes(glob) || !looksLikeDesign(document.getText())) {
      return;
    }
    this.asked.add(glob);
    const yes = `Yes, add ${glob}`;
    const choice = await vscode.window.showInformationMessage(
      `Treat files like this as Hermes Workflow designs? ${relative} looks like a design (nodes with ids and types) ` +
        `but is outside hwf.designs.globs, so it gets no checks, hints, canvas or runs.`,
      yes, 'Never',
    );
    if (choice === yes) {
      const config = vscode.workspace.getConfiguration(CONFIG_SECTION);
      const current = config.inspect<string[]>('designs.globs');
      const base = current?.workspaceValue ?? current?.defaultValue ?? [];
      await config.update('designs.globs', [...base, glob], vscode.ConfigurationTarget.Workspace);
      getLog().info(`Added ${glob} to the workspace's hwf.designs.globs (asked on ${relative}).`);
    } else if (choice === 'Never') {
      await this.state.update(NEVER_KEY, [...never, glob]);
    }
  }
}
