/**
 * The language server's lifecycle: find a Python that can import hwf_lsp, start
 * `python -m hwf_lsp` over stdio, keep its settings current, restart it on demand,
 * and send it commands. Everything else talks to the server through this module.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';
import { CLIENT_ID, EXTENSION_NAME, RUN_COMMANDS, RUNS_CHANGED_NOTIFICATION } from '../model/constants';
import { HwfLanguageClient, lineFramed } from './clientLog';
import { errorText, getLog } from './log';
import {
  checkServerImport,
  describeSource,
  firstSupportedPython,
  Interpreter,
  interpreterCandidates,
  onPythonInterpreterChanged,
  ProbeContext,
  workspaceFolderPaths,
} from './python';
import {
  chooseServer,
  findBundle,
  Launch,
  MIN_PYTHON_TEXT,
  pythonEnvironment,
  safeDirectory,
  serverLaunch,
  settingNotUsedText,
  wantsInstalled,
} from '../model/pythonModel';
import { JSON_LANGUAGES } from '../model/settingsModel';
import {
  changeNeedsRestart,
  ExtensionSettings,
  readSettings,
  serverSelector,
  serverSettings,
  settingsSection,
} from './settings';
import { ensureTrusted, isTrusted, onTrustGranted } from './trust';

export type ServerState = 'stopped' | 'starting' | 'running' | 'failed';

export interface ServerHooks {
  /** The server's `hwf/runsChanged` notification. */
  onRunsChanged(payload: unknown): void;
  /** Every run command's result, whether a code lens or a client command sent it. */
  afterCommand(command: string, result: unknown): void;
  /**
   * A server command invoked through VS Code (a code lens click): return true when the
   * client's own UI takes it over (e.g. a quick pick instead of a message request).
   */
  takeOver(command: string, args: unknown[]): Promise<boolean>;
}

/** Thrown by `execute` when a command failed; the user has been told why. */
export class ServerCommandError extends Error {}

/** Directories of the extension's own, outside any workspace: where Python processes start. */
export interface ServerDirectories {
  /** The extension's global storage (created on demand). */
  storage: string;
  /** Where the extension is installed. */
  extension: string;
}

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private queue: Promise<void> = Promise.resolve();
  private current: ExtensionSettings = readSettings();
  private interpreterInUse: Interpreter | undefined;
  private settingUnused: string | undefined;
  private settingUnusedSaid: string | undefined;
  private stateValue: ServerState = 'stopped';
  /** False until something needs the server: a JSON workspace without designs never starts it. */
  private wanted = false;
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly disposables: vscode.Disposable[] = [this.stateEmitter];

  readonly onDidChangeState = this.stateEmitter.event;

  constructor(
    private readonly hooks: ServerHooks,
    private readonly directories: ServerDirectories,
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((event) => this.onConfigurationChanged(event)),
      onTrustGranted(() => this.wanted && void this.restart()),
    );
    void onPythonInterpreterChanged(() => {
      if (this.wanted && this.current.pythonPath === '') {
        getLog().info('The Python extension selected another interpreter: restarting the server.');
        void this.restart();
      }
    }).then((d) => d && this.disposables.push(d));
  }

  get state(): ServerState {
    return this.stateValue;
  }

  get settings(): ExtensionSettings {
    return this.current;
  }

  /** A configured interpreter that could not be used, and the fallback (its words). */
  get interpreterProblem(): string | undefined {
    return this.settingUnused;
  }

  get interpreter(): Interpreter | undefined {
    return this.interpreterInUse;
  }

  start(): Promise<void> {
    this.wanted = true;
    return this.enqueue(() => this.doStart());
  }

  /** Starts the server the first time it is needed (a design opens, the Runs view shows). */
  ensureStarted(): Promise<void> {
    return this.wanted ? this.queue : this.start();
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.doStop());
  }

  restart(): Promise<void> {
    return this.enqueue(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  /**
   * Sends a server command (workspace/executeCommand). Run commands are refused in
   * an untrusted workspace. A command's own failure comes back as an error whose
   * message starts with `<command>:` and which the server has already shown
   * (docs/commands.md); anything else (no such command, a broken connection) is
   * shown here, so every failure is shown exactly once. `quiet`: log only (for
   * background refreshes the user did not ask for).
   */
  async execute(command: string, args: unknown[], { quiet = false } = {}): Promise<unknown> {
    if (RUN_COMMANDS.has(command) && !isTrusted()) {
      ensureTrusted();
      throw new ServerCommandError('runs are disabled in Restricted Mode');
    }
    await this.ensureStarted();
    const client = this.client;
    if (!client || this.stateValue !== 'running') {
      const message = `${EXTENSION_NAME}: the language server is not running. Check the log, fix the cause, then run "Hermes Workflow: Restart Language Server".`;
      if (!quiet) {
        void vscode.window.showErrorMessage(message, 'Show Log').then((c) => c && getLog().show());
      }
      throw new ServerCommandError(message);
    }
    getLog().info(`${command} ${JSON.stringify(args)}`);
    try {
      const result = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args as never[] });
      this.hooks.afterCommand(command, result);
      return result;
    } catch (error) {
      const shownByServer = error instanceof ResponseError && error.message.startsWith(`${command}:`);
      getLog().error(`${command} failed: ${errorText(error)}`);
      if (!shownByServer && !quiet) {
        void vscode.window.showErrorMessage(`${EXTENSION_NAME}: ${command} failed: ${errorText(error)}`);
      }
      throw new ServerCommandError(errorText(error));
    }
  }

  /** Tells the running server about new settings (no restart needed). */
  pushSettings(): void {
    this.current = readSettings();
    const client = this.client;
    if (client && this.stateValue === 'running') {
      void client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { hwf: serverSettings(this.current, isTrusted()) },
      });
    }
  }

  dispose(): void {
    void this.doStop();
    this.disposables.forEach((d) => d.dispose());
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private setState(state: ServerState): void {
    this.stateValue = state;
    this.stateEmitter.fire(state);
  }

  private onConfigurationChanged(event: vscode.ConfigurationChangeEvent): void {
    if (!event.affectsConfiguration('hwf')) {
      return;
    }
    if (!this.wanted) {
      this.current = readSettings();
      return;
    }
    if (changeNeedsRestart(event)) {
      getLog().info('The interpreter or the design globs changed: restarting the server.');
      void this.restart();
    } else {
      this.pushSettings();
    }
  }

  private async doStart(): Promise<void> {
    this.current = readSettings();
    this.setState('starting');
    const trusted = isTrusted();
    const probe = this.probeContext(trusted);
    const candidates = await interpreterCandidates(this.current.pythonPath, trusted, vscode.window.activeTextEditor?.document.uri);
    const found = await firstSupportedPython(candidates, probe);
    if (!found.ok) {
      getLog().error(`Cannot start the language server: no Python ${MIN_PYTHON_TEXT} or newer. Tried: ${found.tried.join('; ')}.`);
      this.setState('failed');
      void showNoPython(found.tried);
      return;
    }
    const interpreter = found.interpreter;
    this.settingUnused = found.settingUnused && settingNotUsedText(found.settingUnused.path, found.settingUnused.why,
      { path: interpreter.path, version: interpreter.version, from: describeSource(interpreter) });
    if (this.settingUnused && this.settingUnused !== this.settingUnusedSaid) {
      this.settingUnusedSaid = this.settingUnused; // once per cause: a restart does not say it again
      void showSettingUnused(this.settingUnused);
    }
    const launch = await this.serverFor(interpreter, probe);
    if (!launch) {
      this.setState('failed');
      return;
    }
    getLog().info(`Starting ${launch.command} ${launch.args.join(' ')} in ${launch.options.cwd}`);
    const client = this.createClient(launch);
    client.onNotification(RUNS_CHANGED_NOTIFICATION, (payload: unknown) => this.hooks.onRunsChanged(payload));
    // The client restarts a crashed server by itself: follow it, so the status shows it.
    client.onDidChangeState((event) => {
      if (this.client !== client) {
        return;
      }
      if (event.newState === State.Running) {
        this.setState('running');
      } else if (event.newState === State.Stopped && this.stateValue === 'running') {
        getLog().warn('The language server stopped.');
        this.setState('failed');
      }
    });
    this.client = client;
    try {
      await client.start();
      if (this.stateValue !== 'running') {
        this.setState('running');
      }
      // Settings chosen while it started (after initializationOptions were taken) are
      // pushed now; a command sent meanwhile waits on the server for its configuration pull.
      this.pushSettings();
      getLog().info('The language server is running.');
    } catch (error) {
      getLog().error(`The language server did not start: ${errorText(error)}`);
      this.setState('failed');
      void vscode.window
        .showErrorMessage(`${EXTENSION_NAME}: the language server did not start: ${errorText(error)}`, 'Show Log')
        .then((choice) => choice && getLog().show());
    }
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(5000);
      } catch (error) {
        getLog().warn(`Stopping the language server: ${errorText(error)}`);
      }
      try {
        await client.dispose();
      } catch {
        // already stopped
      }
    }
    this.setState('stopped');
  }

  /**
   * The server `interpreter` runs: its own installed hwf-lsp when the user chose that
   * interpreter and it has one, else the bundled one. Says in the log which it is;
   * undefined (and the user told why) when there is neither.
   */
  private async serverFor(interpreter: Interpreter, probe: ProbeContext): Promise<Launch | undefined> {
    const bundle = findBundle(this.directories.extension);
    const installed = wantsInstalled(interpreter.source, bundle !== undefined)
      ? await checkServerImport(interpreter.path, probe)
      : undefined;
    const kind = chooseServer(interpreter.source, bundle !== undefined, installed?.ok === true);
    const python = `${interpreter.path} (Python ${interpreter.version}, from ${describeSource(interpreter)})`;
    if (kind === 'installed' && installed?.ok) {
      this.interpreterInUse = { ...interpreter, server: 'installed' };
      getLog().info(`Language server: hwf-lsp ${installed.version} installed in ${python}`);
      return serverLaunch(interpreter.path, { kind }, probe.cwd, probe.env);
    }
    if (kind === 'bundled' && bundle) {
      this.interpreterInUse = { ...interpreter, server: 'bundled' };
      const instead = installed && !installed.ok ? ` (it has no hwf-lsp of its own: ${installed.detail})` : '';
      getLog().info(`Language server: hwf-lsp ${bundle.version} bundled with the extension, run by ${python}${instead}`);
      return serverLaunch(interpreter.path, { kind, entry: bundle.entry }, probe.cwd, probe.env);
    }
    this.interpreterInUse = interpreter;
    const detail = installed && !installed.ok ? installed.detail : 'not checked';
    getLog().error(`Cannot start the language server: this build of the extension has no bundled server, and ${interpreter.path} cannot import hwf_lsp (${detail}).`);
    void showStartFailure(interpreter, detail);
    return undefined;
  }

  /**
   * Where and how every Python process starts: outside every workspace folder, with
   * PYTHONSAFEPATH (pythonModel.ts says why). The debug adapter starts so too (debug.ts).
   */
  probeContext(trusted: boolean): ProbeContext {
    const folders = workspaceFolderPaths();
    try {
      fs.mkdirSync(this.directories.storage, { recursive: true });
    } catch (error) {
      getLog().warn(`Cannot create ${this.directories.storage}: ${errorText(error)}`);
    }
    const candidates = [this.directories.storage, this.directories.extension, os.homedir(), os.tmpdir()].filter((d) => fs.existsSync(d));
    const { env, dropped } = pythonEnvironment(process.env, folders, trusted);
    if (dropped.length > 0) {
      getLog().warn(`PYTHONPATH entries inside the untrusted workspace (or relative) are not passed to Python: ${dropped.join(', ')}`);
    }
    return { cwd: safeDirectory(candidates, folders), env };
  }

  private createClient(launch: Launch): LanguageClient {
    const serverOptions: ServerOptions = launch;
    const clientOptions: LanguageClientOptions = {
      documentSelector: serverSelector(this.current.designGlobs),
      outputChannel: lineFramed(getLog()),
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      diagnosticCollectionName: CLIENT_ID,
      initializationOptions: { settings: serverSettings(this.current, isTrusted()) },
      markdown: { isTrusted: false, supportHtml: false },
      middleware: {
        handleDiagnostics: (uri, diagnostics, next) => next(uri, withoutJsonDuplicates(uri, diagnostics, languageOf(uri))),
        // the server pulls-or-pushes by capability: VS Code pulls, so filter the pulled reports too
        provideDiagnostics: async (document, previousResultId, token, next) => {
          const report = await next(document, previousResultId, token);
          const language = document instanceof vscode.Uri ? languageOf(document) : document.languageId;
          return report && 'items' in report ? { ...report, items: withoutJsonDuplicates(document instanceof vscode.Uri ? document : document.uri, report.items, language) } : report;
        },
        workspace: {
          configuration: (params, token, next) => {
            const settings = serverSettings(readSettings(), isTrusted());
            const fallback = params.items.some((item) => !item.section?.startsWith('hwf'))
              ? next(params, token)
              : undefined;
            const answer = (others: unknown[] | undefined) =>
              params.items.map((item, i) =>
                item.section?.startsWith('hwf') || item.section === undefined
                  ? settingsSection(settings, item.section)
                  : others?.[i] ?? null,
              );
            if (fallback && typeof (fallback as Promise<unknown>).then === 'function') {
              return (fallback as Promise<unknown[]>).then((others) => answer(Array.isArray(others) ? others : undefined));
            }
            return answer(Array.isArray(fallback) ? fallback : undefined);
          },
        },
        executeCommand: async (command, args) => {
          try {
            if (await this.hooks.takeOver(command, args)) {
              return undefined;
            }
            return await this.execute(command, args);
          } catch {
            return undefined; // already logged and shown
          }
        },
      },
    };
    return new HwfLanguageClient(CLIENT_ID, EXTENSION_NAME, serverOptions, clientOptions);
  }
}

/**
 * Findings VS Code's own JSON validation already reports on every JSON file (syntax
 * errors, duplicate keys). While it is on (`json.validate.enable`, the default) the
 * server's copies are dropped from a document VS Code checks as JSON, so each problem
 * shows once in the Problems panel -- but the JSON validator reports no duplicate key past
 * a syntax error, so on broken text the server's duplicate-key stays unless VS Code's JSON
 * validator has one at the same place. A design in its own language (docs/decisions.md) is
 * not JSON to VS Code: the server's findings are the only ones and all stay.
 */
const JSON_SERVICE_CODES: ReadonlySet<string> = new Set(['json-syntax', 'duplicate-key']);

function codeOf(d: vscode.Diagnostic): string {
  return String(typeof d.code === 'object' && d.code !== null ? d.code.value : d.code);
}

function languageOf(uri: vscode.Uri): string | undefined {
  const key = uri.toString();
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key)?.languageId;
}

function withoutJsonDuplicates(uri: vscode.Uri, diagnostics: vscode.Diagnostic[], language: string | undefined): vscode.Diagnostic[] {
  if (language === undefined || !JSON_LANGUAGES.includes(language)) {
    return diagnostics;
  }
  if (vscode.workspace.getConfiguration('json').get<boolean>('validate.enable') === false) {
    return diagnostics;
  }
  const broken = diagnostics.some((d) => codeOf(d) === 'json-syntax');
  const jsonSays = broken
    ? vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'json')
    : [];
  return diagnostics.filter((d) => {
    const code = codeOf(d);
    if (code === 'duplicate-key' && broken) {
      return !jsonSays.some((j) => j.range.isEqual(d.range));
    }
    return !JSON_SERVICE_CODES.has(code);
  });
}

/** The configured interpreter was passed over: say so, the fallback, and where to fix it. */
async function showSettingUnused(text: string): Promise<void> {
  const choice = await vscode.window.showWarningMessage(`${EXTENSION_NAME}: ${text}`, 'Open Settings', 'Show Log');
  if (choice === 'Open Settings') {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'hwf.server.pythonPath');
  } else if (choice === 'Show Log') {
    getLog().show();
  }
}

/** No Python 3.11+ among the candidates: say exactly that, and what was found. */
async function showNoPython(tried: string[]): Promise<void> {
  const message =
    `${EXTENSION_NAME}: cannot start the language server: it needs Python ${MIN_PYTHON_TEXT} or newer, and none was found ` +
    `(tried ${tried.join(', ')}). Install Python ${MIN_PYTHON_TEXT}+ or set hwf.server.pythonPath to one, then restart the server.`;
  const choice = await vscode.window.showErrorMessage(message, 'Open Settings', 'Show Log');
  if (choice === 'Open Settings') {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'hwf.server.pythonPath');
  } else if (choice === 'Show Log') {
    getLog().show();
  }
}

/**
 * No server to run: a build of the extension without `bundled/libs` (a development
 * build) and an interpreter without hwf-lsp. The exact fix, with buttons.
 */
async function showStartFailure(interpreter: Interpreter, detail: string): Promise<void> {
  const message =
    `${EXTENSION_NAME}: cannot start the language server: this build of the extension carries no server ` +
    `(build the .vsix with \`make vsix\` and install it), and ${interpreter.path} (${describeSource(interpreter)}) cannot import hwf_lsp (${detail}). ` +
    'Or set hwf.server.pythonPath to an interpreter that has hwf-lsp installed, then restart the server.';
  const choice = await vscode.window.showErrorMessage(message, 'Open Settings', 'Show Log');
  if (choice === 'Open Settings') {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'hwf.server.pythonPath');
  } else if (choice === 'Show Log') {
    getLog().show();
  }
}
