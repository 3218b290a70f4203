/**
 * One log for the whole extension: a LogOutputChannel named "Hermes Workflow".
 * The language client writes the server's stderr and the protocol trace
 * (`hwf.trace.server`) to the same channel, so a bug report needs one copy-paste.
 */
import * as vscode from 'vscode';

let channel: vscode.LogOutputChannel | undefined;

export function getLog(): vscode.LogOutputChannel {
  if (!channel) {
    channel = vscode.window.createOutputChannel('Hermes Workflow', { log: true });
  }
  return channel;
}

export function disposeLog(): void {
  channel?.dispose();
  channel = undefined;
}

/** The message of anything thrown, for logs and notifications. */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    return error.message;
  }
  if (error && typeof error === 'object' && 'message' in error) {
    return String((error as { message: unknown }).message);
  }
  return String(error);
}
