/**
 * Workspace trust. In Restricted Mode a design is still checked, completed and
 * navigable, but nothing runs: a run executes the agent and delivery commands from
 * the settings, which an untrusted workspace could otherwise set. The server is told
 * with `runsEnabled: false` and refuses too; this module gives the user the message.
 */
import * as vscode from 'vscode';

export const RESTRICTED_MESSAGE =
  'Hermes Workflow: runs are disabled in Restricted Mode, because a run executes the agent ' +
  'and delivery commands from your settings. Checks, completion and navigation keep working. ' +
  'Trust this workspace to run workflows.';

export function isTrusted(): boolean {
  return vscode.workspace.isTrusted;
}

/** True when runs may go ahead; otherwise tells the user why not and returns false. */
export function ensureTrusted(): boolean {
  if (vscode.workspace.isTrusted) {
    return true;
  }
  void vscode.window.showWarningMessage(RESTRICTED_MESSAGE, 'Manage Workspace Trust').then((choice) => {
    if (choice) {
      void vscode.commands.executeCommand('workbench.trust.manage');
    }
  });
  return false;
}

export function onTrustGranted(listener: () => void): vscode.Disposable {
  return vscode.workspace.onDidGrantWorkspaceTrust(listener);
}
