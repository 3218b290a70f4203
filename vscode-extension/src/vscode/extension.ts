/**
 * Entry point: wires the parts together and nothing else. Each part lives in
 * src/vscode/ with one job, their pure halves in src/model/ (see README "How it is built").
 */
import * as vscode from 'vscode';
import { AgentChoice } from './agentChoice';
import { CanvasPanels } from './canvas';
import { Commands } from './commands';
import { Debugger, DebugStops } from './debug';
import { DesignOffer } from './designOffer';
import { DesignTests, isTestFile } from './designTests';
import { DesignLanguage } from './languageMode';
import { CONFIG_SECTION, designGlobsOf } from '../model/settingsModel';
import { disposeLog, getLog } from './log';
import { RunsModel } from './runs';
import { createRunsView } from './runsView';
import { ServerManager } from './server';
import { isDesignDocument } from './settings';
import { RunStatusBar, ServerStatusItem } from './statusBar';

let server: ServerManager | undefined;
const designLanguage = new DesignLanguage();

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = getLog();
  log.info(`Hermes Workflow ${context.extension.packageJSON.version} activating`);

  let commands: Commands | undefined;
  let model: RunsModel | undefined;
  server = new ServerManager({
    onRunsChanged: (payload) => model?.changed(payload),
    afterCommand: (command, result) => commands?.report(command, result),
    takeOver: async (command, args) => (commands ? commands.takeOver(command, args) : false),
  }, { storage: context.globalStorageUri.fsPath, extension: context.extensionPath });
  model = new RunsModel(server);
  const agents = new AgentChoice(server, context.workspaceState);
  commands = new Commands(server, model, agents);
  const { provider, view } = createRunsView(model);
  const designTests = new DesignTests(server);
  const stops = new DebugStops();

  context.subscriptions.push(
    server,
    model,
    commands,
    agents,
    provider,
    view,
    new RunStatusBar(model, server),
    new ServerStatusItem(server),
    new CanvasPanels(context.extensionUri, server, model, context.workspaceState, stops),
    designTests,
    stops,
    new Debugger(server, context.extensionPath, stops),
    new DesignOffer(context.workspaceState, () => server?.settings.designGlobs ?? []),
    server.onDidChangeState((state) => state === 'running' && void model?.refresh()),
    view.onDidChangeVisibility((event) => event.visible && void server?.ensureStarted().then(() => model?.refresh())),
    vscode.workspace.onDidOpenTextDocument((document) => startForDesign(document)),
    // a glob added (the design offer, the Settings UI): open JSON files it now matches become designs
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${CONFIG_SECTION}.designs.globs`)) {
        const globs = designGlobsOf(vscode.workspace.getConfiguration(CONFIG_SECTION).get('designs.globs'));
        vscode.workspace.textDocuments.forEach((document) => void designLanguage.adopt(document, globs));
      }
    }),
    { dispose: disposeLog },
  );

  // The server starts when a design (or a design test file) is open or the Runs view
  // shows: other JSON files never start a Python process (nor report a missing hwf-lsp).
  vscode.workspace.textDocuments.forEach(startForDesign);
  void designTests.discover(); // the Test Explorer lists the design test files at once
  if (view.visible) {
    await server.ensureStarted();
  }
}

function startForDesign(document: vscode.TextDocument): void {
  if (server) {
    void designLanguage.adopt(document, server.settings.designGlobs);
  }
  if (server && (isDesignDocument(document, server.settings.designGlobs) || isTestFile(document.uri))) {
    void server.ensureStarted();
  }
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
