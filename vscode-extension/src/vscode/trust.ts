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

/** What Choose Agent… refuses in Restricted Mode: writing the setting, not a run. */
export const AGENT_SETTING_REFUSED =
  'Hermes Workflow: Choose Agent… does not write the agent setting (hwf.agent.command) in Restricted Mode: ' +
  'that command runs on your machine at every agent step, and an untrusted workspace could choose it. ' +
  'Trust this workspace to choose the agent.';

/** True when the action may go ahead; otherwise says what is refused (`message`) and
 * returns false. */
export function ensureTrusted(message: string = RESTRICTED_MESSAGE): boolean {
  if (vscode.workspace.isTrusted) {
    return true;
  }
  void vscode.window.showWarningMessage(message, 'Manage Workspace Trust').then((choice) => {
    if (choice) {
      void vscode.commands.executeCommand('workbench.trust.manage');
    }
  });
  return false;
}

export function onTrustGranted(listener: () => void): vscode.Disposable {
  return vscode.workspace.onDidGrantWorkspaceTrust(listener);
}
