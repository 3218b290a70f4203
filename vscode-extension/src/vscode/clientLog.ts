/**
 * What the language client writes to the log, made to read like the rest (issue 47): the
 * server's stderr a line at a time, so every line gets the log's time and level; a server
 * that exited with code 0 (a restart or stop the user asked for) an info line, not an error.
 */
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { isCleanExit, LineBuffer } from '../model/logLines';

/** `channel`, whose `append` (the client's stderr chunks) writes whole lines. */
export function lineFramed(channel: vscode.LogOutputChannel): vscode.LogOutputChannel {
  const lines = new LineBuffer();
  return new Proxy(channel, {
    get(target, property) {
      if (property === 'append') {
        return (value: string) => lines.push(value).forEach((line) => target.appendLine(line));
      }
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export class HwfLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    if (isCleanExit(message)) {
      this.info('The language server exited (code 0).', undefined, false);
      return;
    }
    super.error(message, data, showNotification);
  }
}
