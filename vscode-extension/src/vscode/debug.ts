/**
 * The workflow debugger in VS Code (docs/debugging.md): the `hwf` debug type runs
 * `hwf_lsp.cli debug-adapter` with the language server's Python and libraries (so the
 * bundled server debugs too), F5 on a design debugs it, "Debug" above a design's trigger
 * and "Debug this case" above each design test case start a session, and where a session
 * is stopped is told to the canvas (`DebugStops`). Like a run, a debug session executes
 * the agent and delivery commands, so Restricted Mode refuses it.
 */
import * as fs from 'fs';
import * as vscode from 'vscode';
import {
  adapterLaunch,
  adapterServer,
  breakpointToggle,
  caseLaunch,
  completeLaunch,
  DEBUG_TYPE,
  definedEnv,
  designLaunch,
  NodeLines,
  nodeOnLine,
  nodesWithBreakpoints,
  StopPlace,
  testFileDesign,
  topFrame,
} from '../model/debugModel';
import { designNodeSpots } from '../model/design';
import { isTestFile } from './designTests';
import { testCases } from '../model/designTestModel';
import { errorText, getLog } from './log';
import { findBundle } from '../model/pythonModel';
import { ServerManager } from './server';
import { designSelector, isDesignDocument, readSettings } from './settings';
import { ensureTrusted, isTrusted, RESTRICTED_MESSAGE } from './trust';

export const DebugCommand = {
  debugDesign: 'hwf.debugDesign',
  debugTestCase: 'hwf.debugTestCase',
} as const;

/** Where the `hwf` debug sessions are stopped (the canvas highlights the node there). */
export class DebugStops implements vscode.Disposable {
  private readonly places = new Map<string, StopPlace>();
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;

  /** The places sessions are stopped at now, newest session last. */
  get all(): StopPlace[] {
    return [...this.places.values()];
  }

  set(session: string, place: StopPlace | undefined): void {
    const before = JSON.stringify(this.places.get(session));
    if (place) {
      this.places.set(session, place);
    } else {
      this.places.delete(session);
    }
    if (JSON.stringify(place) !== before) {
      this.emitter.fire();
    }
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

export class Debugger implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly lensesChanged = new vscode.EventEmitter<void>();

  constructor(
    private readonly server: ServerManager,
    private readonly extensionPath: string,
    readonly stops: DebugStops,
  ) {
    const lenses: vscode.CodeLensProvider = {
      onDidChangeCodeLenses: this.lensesChanged.event,
      provideCodeLenses: (document) => (isTrusted() ? debugLenses(document, server.settings.designGlobs) : []),
    };
    this.disposables.push(
      this.lensesChanged,
      vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, { createDebugAdapterDescriptor: () => this.adapter() }),
      vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, {
        provideDebugConfigurations: () => [{ ...designLaunch('${file}'), name: 'Debug the open design' }],
        resolveDebugConfiguration: (_folder, config) => this.resolve(config),
      }),
      vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, { createDebugAdapterTracker: (session) => this.tracker(session) }),
      vscode.debug.onDidTerminateDebugSession((session) => stops.set(session.id, undefined)),
      vscode.commands.registerCommand(DebugCommand.debugDesign, (uri?: vscode.Uri) => this.debugDesign(uri)),
      vscode.commands.registerCommand(DebugCommand.debugTestCase, (uri: vscode.Uri, name: string) => this.debugTestCase(uri, name)),
      vscode.languages.registerCodeLensProvider([...designSelector(server.settings.designGlobs), { scheme: 'file', pattern: '**/*.hwf-test.json' }], lenses),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.lensesChanged.fire()),
    );
  }

  /** F5 / a launch.json entry: filled in from the active design and the settings; refused in Restricted Mode. */
  private resolve(config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    if (!ensureTrusted()) {
      return undefined; // the user was told why; no session starts
    }
    const settings = readSettings();
    const active = vscode.window.activeTextEditor?.document;
    const launch = completeLaunch(config, {
      activeDesign: isDesignDocument(active, settings.designGlobs) ? active!.uri.fsPath : undefined,
      agentCommand: settings.agentCommand,
      deliveryCommand: settings.deliveryCommand,
    });
    if ('error' in launch) {
      void vscode.window.showErrorMessage(`Hermes Workflow: ${launch.error}`);
      return undefined;
    }
    return launch as vscode.DebugConfiguration;
  }

  /** The adapter process: the language server's interpreter, libraries, directory and environment. */
  private async adapter(): Promise<vscode.DebugAdapterDescriptor> {
    if (!isTrusted()) {
      throw new Error(RESTRICTED_MESSAGE);
    }
    await this.server.ensureStarted();
    const interpreter = this.server.interpreter;
    const server = adapterServer(interpreter?.server, findBundle(this.extensionPath)?.entry);
    if (!interpreter || !server) {
      throw new Error('Hermes Workflow: the debugger runs with the language server\'s Python, and the language server did not start. See the Hermes Workflow log.');
    }
    const { cwd, env } = this.server.probeContext(true);
    const launch = adapterLaunch(interpreter.path, server, cwd, env, this.server.settings.hermesHome);
    getLog().info(`Debug adapter: ${launch.command} ${launch.args.join(' ')} in ${cwd} (${server.kind} hwf-lsp)`);
    return new vscode.DebugAdapterExecutable(launch.command, launch.args, { cwd, env: definedEnv(launch.options.env) });
  }

  /** Follows a session's messages: the top frame after each stop, cleared when it runs on. */
  private tracker(session: vscode.DebugSession): vscode.DebugAdapterTracker {
    return {
      onDidSendMessage: (message: { type?: string; event?: string; command?: string; body?: unknown; success?: boolean }) => {
        if (message.type === 'response' && message.command === 'stackTrace' && message.success) {
          const place = topFrame(message.body);
          if (place) {
            this.stops.set(session.id, place);
          }
        } else if (message.type === 'event' && (message.event === 'continued' || message.event === 'terminated' || message.event === 'exited')) {
          this.stops.set(session.id, undefined);
        }
      },
      onWillReceiveMessage: (message: { command?: string }) => {
        if (message.command === 'continue' || message.command === 'next' || message.command === 'stepIn' || message.command === 'stepOut') {
          this.stops.set(session.id, undefined);
        }
      },
      onError: (error) => getLog().info(`Debug adapter stream: ${errorText(error)}`), // also the pipe closing at the end
      onExit: (code, signal) => {
        this.stops.set(session.id, undefined);
        if (code) {
          getLog().warn(`Debug adapter exited with ${code}${signal ? ` (${signal})` : ''}`);
        }
      },
    };
  }

  private async debugDesign(uri?: vscode.Uri): Promise<boolean> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!target) {
      void vscode.window.showInformationMessage('Hermes Workflow: open a design to debug it.');
      return false;
    }
    return vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(target), designLaunch(target.fsPath));
  }

  private async debugTestCase(uri: vscode.Uri, name: string): Promise<boolean> {
    let designField: unknown;
    try {
      designField = (JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri))) as { design?: unknown }).design;
    } catch {
      designField = undefined; // the adapter reads the test file and says what is wrong with it
    }
    const design = testFileDesign(uri.fsPath, designField, (file) => fs.existsSync(file));
    return vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(uri), caseLaunch(uri.fsPath, name, design));
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}

/** "Debug" above a design's trigger (beside ▶ Start run); "Debug this case" above each design test case. */
function debugLenses(document: vscode.TextDocument, globs: readonly string[]): vscode.CodeLens[] {
  const text = document.getText();
  if (isTestFile(document.uri)) {
    return testCases(text).map((spot) => new vscode.CodeLens(
      new vscode.Range(spot.range.start.line, spot.range.start.character, spot.range.start.line, spot.range.start.character),
      { title: '$(debug-alt) Debug this case', command: DebugCommand.debugTestCase, arguments: [document.uri, spot.name] },
    ));
  }
  if (!isDesignDocument(document, globs)) {
    return [];
  }
  const trigger = designNodeSpots(text).find((spot) => spot.type === 'trigger');
  const at = document.positionAt(trigger?.offset ?? 0);
  return [new vscode.CodeLens(new vscode.Range(at, at), { title: '$(debug-alt) Debug', command: DebugCommand.debugDesign, arguments: [document.uri] })];
}

/** The lines (0-based) of the source breakpoints set in `document`. */
function breakpointLines(document: vscode.TextDocument): number[] {
  return vscode.debug.breakpoints
    .filter((b): b is vscode.SourceBreakpoint => b instanceof vscode.SourceBreakpoint && b.location.uri.toString() === document.uri.toString())
    .map((b) => b.location.range.start.line);
}

/** What the canvas of `document` shows of debugging: the node a session is stopped before, the steps with a breakpoint. */
export function canvasDebugState(document: vscode.TextDocument, nodes: readonly NodeLines[], stops: DebugStops): { stopped: string | null; breakpoints: string[] } {
  const here = stops.all.filter((place) => place.path === document.uri.fsPath).pop();
  return {
    stopped: here ? nodeOnLine(nodes, here.line - 1)?.id ?? null : null,
    breakpoints: nodesWithBreakpoints(nodes, breakpointLines(document)),
  };
}

/** The canvas's breakpoint toggle on node `id`: the same breakpoints as a click in the editor's gutter. */
export function toggleNodeBreakpoint(document: vscode.TextDocument, nodes: readonly NodeLines[], id: string): void {
  const change = breakpointToggle(nodes.find((n) => n.id === id), breakpointLines(document));
  if (!change) {
    return;
  }
  if ('add' in change) {
    vscode.debug.addBreakpoints([new vscode.SourceBreakpoint(new vscode.Location(document.uri, new vscode.Position(change.add, 0)))]);
    return;
  }
  const lines = new Set(change.remove);
  vscode.debug.removeBreakpoints(vscode.debug.breakpoints.filter((b) =>
    b instanceof vscode.SourceBreakpoint && b.location.uri.toString() === document.uri.toString() && lines.has(b.location.range.start.line)));
}
