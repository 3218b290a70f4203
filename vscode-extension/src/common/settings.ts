/**
 * The extension's settings (section `hwf`) read from VS Code. The shapes and the
 * object the server gets are in settingsModel.ts (pure, unit tested).
 */
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { CONFIG_SECTION, designGlobsOf, designSelector, type ExtensionSettings } from './settingsModel';

export { CONFIG_SECTION, DEFAULT_DESIGN_GLOBS, designSelector, serverSettings, settingsSection } from './settingsModel';
export type { ExtensionSettings, ServerSettings } from './settingsModel';

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function workspaceFolderPath(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

/** `~` and `${workspaceFolder}` expanded; relative paths resolved against the folder. */
export function expandPath(value: string, folder: string | undefined = workspaceFolderPath()): string {
  let result = value.trim();
  if (result === '') {
    return result;
  }
  if (folder) {
    result = result.replace(/\$\{workspaceFolder\}/g, folder);
  }
  if (result === '~' || result.startsWith('~/')) {
    result = path.join(os.homedir(), result.slice(1));
  }
  if (folder && !path.isAbsolute(result) && result.includes(path.sep)) {
    result = path.resolve(folder, result);
  }
  return result;
}

export function readSettings(): ExtensionSettings {
  const config = vscode.workspace.getConfiguration(CONFIG_SECTION);
  return {
    pythonPath: expandPath(config.get<string>('server.pythonPath') ?? ''),
    agentCommand: stringList(config.get('agent.command')).map((arg, i) => (i === 0 ? expandPath(arg) : arg)),
    allowModelOverride: config.get<boolean>('agent.allowModelOverride') === true,
    deliveryCommand: stringList(config.get('delivery.command')).map((arg, i) => (i === 0 ? expandPath(arg) : arg)),
    hermesHome: expandPath(config.get<string>('hermesHome') ?? ''),
    designGlobs: designGlobsOf(config.get('designs.globs')),
  };
}

/** Settings whose change needs a new server process (a new interpreter or selector). */
export function changeNeedsRestart(event: vscode.ConfigurationChangeEvent): boolean {
  return (
    event.affectsConfiguration(`${CONFIG_SECTION}.server.pythonPath`) ||
    event.affectsConfiguration(`${CONFIG_SECTION}.designs.globs`)
  );
}

/** True when `document` is a design under the current globs. */
export function isDesignDocument(document: vscode.TextDocument | undefined, globs: readonly string[]): boolean {
  if (!document) {
    return false;
  }
  return vscode.languages.match(designSelector(globs), document) > 0;
}
