/**
 * The extension's settings (section `hwf`) read from VS Code. The shapes and the
 * object the server gets are in settingsModel.ts (pure, unit tested).
 */
import * as path from 'path';
import * as vscode from 'vscode';
import { expandPath } from '../model/pythonModel';
import { CONFIG_SECTION, designGlobsOf, designSelector, type ExtensionSettings, userValue } from '../model/settingsModel';

export { CONFIG_SECTION, DEFAULT_DESIGN_GLOBS, designSelector, serverSelector, serverSettings, settingsSection } from '../model/settingsModel';
export type { ExtensionSettings, ServerSettings } from '../model/settingsModel';

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function workspaceFolderPath(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

/**
 * A command setting (argv): the program expanded like a path, `${workspaceFolder}` in
 * every argument. The server (so the command) does not run in the workspace folder.
 */
function commandOf(value: unknown, folder: string | undefined): string[] {
  return stringList(value).map((arg, i) =>
    i === 0 ? expandPath(arg, folder) : folder ? arg.replace(/\$\{workspaceFolder\}/g, folder) : arg,
  );
}

/** A directory setting: expanded, and a relative one taken from the workspace folder. */
function directoryOf(value: string, folder: string | undefined): string {
  const expanded = expandPath(value, folder);
  return expanded !== '' && folder && !path.isAbsolute(expanded) ? path.resolve(folder, expanded) : expanded;
}

/**
 * The settings, expanded. `pythonPath` stays as written: whether it may be used
 * depends on trust (pythonModel.checkPythonSetting expands it).
 */
export function readSettings(): ExtensionSettings {
  const config = vscode.workspace.getConfiguration(CONFIG_SECTION);
  const folder = workspaceFolderPath();
  return {
    pythonPath: (config.get<string>('server.pythonPath') ?? '').trim(),
    agentCommand: commandOf(config.get('agent.command'), folder),
    allowModelOverride: config.get<boolean>('agent.allowModelOverride') !== false, // only narrows the config.yaml gate
    deliveryCommand: commandOf(config.get('delivery.command'), folder),
    // the user's own: a repository must not choose the home whose config.yaml holds the gate
    hermesHome: directoryOf(userValue(config.inspect<string>('hermesHome')) ?? '', folder),
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
