/**
 * The canvas beside a design: a webview panel per design document that draws the
 * server's `hwf.graph` of the current text on every edit (unsaved and broken text
 * included), follows the text cursor, reveals a clicked node's JSON, sends the canvas's
 * edits as `hwf.edit.*` server commands (the server applies them with
 * workspace/applyEdit, so the text editor's undo undoes them) and shows the newest run
 * of the design. The canvas never writes the file. Where the nodes sit is stored in the
 * workspace state (not in the design); the panel comes back after a window reload (a
 * webview panel serializer); Export writes the PNG or SVG the canvas drew.
 */
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { ServerCommand, UiCommand } from '../model/constants';
import { canvasHtml, designNameFor, foreignRun, makeNonce, RedrawClock } from '../model/canvasModel';
import { canvasDebugState, DebugStops, toggleNodeBreakpoint } from './debug';
import { errorText, getLog } from './log';
import { Pickers } from './pickers';
import { asRunSummary, newestRunOf, RunSummary, stepsOfRun } from '../model/runModel';
import { RunsModel } from './runs';
import { readRunFile, RunItem, runFileMtime, StepItem } from './runsView';
import { ServerManager } from './server';
import { designSelector, isDesignDocument } from './settings';
import { isTrusted } from './trust';
import { asGraphView, GraphView, nodeAt } from '../model/graphModel';
import { UndoRelay } from '../model/undoRelay';
import { completeCommand, editCommand, editFailureText, EditRequest, expressionItems, HostMessage, parseCanvasMessage, PositionEntry, positionEntries, runCommand } from '../model/protocol';

const VIEW_TYPE = 'hwf.canvas';
const POSITIONS_KEY = 'hwf.canvas.positions:';

export class CanvasPanels implements vscode.Disposable {
  private readonly panels = new Map<string, CanvasPanel>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly server: ServerManager,
    private readonly model: RunsModel,
    private readonly state: vscode.Memento,
    private readonly stops: DebugStops,
  ) {
    this.disposables.push(
      vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, { deserializeWebviewPanel: (panel, saved) => this.restore(panel, saved) }),
      vscode.commands.registerCommand(UiCommand.openCanvas, (uri?: vscode.Uri) => this.open(uri)),
      vscode.commands.registerCommand(UiCommand.showRunOnCanvas, (target?: unknown) => this.showRun(target)),
      // the keys pressed while a canvas's focus is on its way back (the webview's frame has it, not yet its page)
      vscode.commands.registerCommand(UiCommand.canvasUndo, () => this.activePanel()?.undoKey('undo')),
      vscode.commands.registerCommand(UiCommand.canvasRedo, () => this.activePanel()?.undoKey('redo')),
      vscode.languages.registerCodeLensProvider(designSelector(server.settings.designGlobs), new OpenCanvasLens()),
    );
  }

  /** The canvas the workbench's key was for: the active one, else the one last focused (the extension host may not know yet). */
  private activePanel(): CanvasPanel | undefined {
    const panels = [...this.panels.values()];
    return panels.find((p) => p.active) ?? panels.sort((a, b) => b.focusedAt - a.focusedAt)[0];
  }

  /** A run picked in the Runs view, on the canvas of its design (instead of the newest). */
  async showRun(target: unknown): Promise<void> {
    const run = target instanceof RunItem || target instanceof StepItem ? target.run : asRunSummary(target);
    if (!run) {
      return;
    }
    const document = await new Pickers(this.server, this.model).designOf(run);
    if (document) {
      (await this.open(document.uri))?.pin(run.run_id);
    }
  }

  async open(uri?: vscode.Uri): Promise<CanvasPanel | undefined> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!target) {
      void vscode.window.showInformationMessage('Hermes Workflow: open a design first, then its canvas.');
      return undefined;
    }
    const document = await vscode.workspace.openTextDocument(target);
    if (!isDesignDocument(document, this.server.settings.designGlobs)) {
      void vscode.window.showInformationMessage(`Hermes Workflow: ${vscode.workspace.asRelativePath(target)} is not a design (setting hwf.designs.globs).`);
      return undefined;
    }
    const key = document.uri.toString();
    const existing = this.panels.get(key);
    if (existing) {
      existing.reveal();
      return existing;
    }
    await this.server.ensureStarted();
    const panel = new CanvasPanel(this.extensionUri, document, this.server, this.model, this.state, this.stops, () => this.panels.delete(key));
    this.panels.set(key, panel);
    return panel;
  }

  /** A canvas VS Code kept across a window reload: its design opened again in it. */
  private async restore(webviewPanel: vscode.WebviewPanel, saved: unknown): Promise<void> {
    const uri = typeof saved === 'object' && saved !== null && typeof (saved as { uri?: unknown }).uri === 'string' ? (saved as { uri: string }).uri : undefined;
    try {
      if (!uri) throw new Error('no design recorded');
      const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
      const key = document.uri.toString();
      if (this.panels.has(key) || !isDesignDocument(document, this.server.settings.designGlobs)) {
        webviewPanel.dispose();
        return;
      }
      await this.server.ensureStarted();
      this.panels.set(key, new CanvasPanel(this.extensionUri, document, this.server, this.model, this.state, this.stops, () => this.panels.delete(key), webviewPanel));
    } catch (error) {
      getLog().warn(`Canvas: not restored (${uri ?? 'unknown design'}): ${errorText(error)}`);
      webviewPanel.dispose(); // no empty editor group left behind
    }
  }

  dispose(): void {
    this.panels.forEach((p) => p.dispose());
    this.disposables.forEach((d) => d.dispose());
  }
}

/** "Open canvas" above the first line of every design. */
class OpenCanvasLens implements vscode.CodeLensProvider {
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    return [new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), { title: '$(type-hierarchy) Open canvas', command: UiCommand.openCanvas, arguments: [document.uri] })];
  }
}

class CanvasPanel {
  private readonly panel: vscode.WebviewPanel;
  private readonly disposables: vscode.Disposable[] = [];
  private graph: GraphView | undefined;
  private seq = 0;
  private inFlight = false;
  private again = false;
  private ready = false;
  private readonly clock = new RedrawClock();
  private lastRunKey = '';
  private runSeq = 0;
  /** The last run message sent, until the canvas says it is on screen. */
  private runSent: { seq: number; label: string; changedAt: number } | undefined;
  /** A run picked in the Runs view; none: the newest run of the design. */
  private pinned: string | undefined;
  /** The canvas's edits, one after another: each is computed on the text the one before left. */
  private edits: Promise<void> = Promise.resolve();
  /** When the text last changed, until its diagnostics came (logged: the latency's yardstick). */
  private changedAt: number | undefined;
  /** Undo and redo requests, one after another, each with the text editor focused. */
  private readonly undos = new UndoRelay({
    focusText: () => this.focusText(),
    run: async (which) => {
      await vscode.commands.executeCommand(which);
    },
    focusCanvas: () => this.panel.reveal(this.panel.viewColumn, false),
    warn: (text) => getLog().warn(`Canvas: ${text}`),
  });
  /** The design's URI: the text document behind it is a new object each time it is opened again. */
  private readonly uri: string;

  constructor(
    extensionUri: vscode.Uri,
    private opened: vscode.TextDocument,
    private readonly server: ServerManager,
    private readonly model: RunsModel,
    private readonly state: vscode.Memento,
    private readonly stops: DebugStops,
    onDisposed: () => void,
    restored?: vscode.WebviewPanel,
  ) {
    this.uri = opened.uri.toString();
    const root = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
    const options = { enableScripts: true, localResourceRoots: [root], retainContextWhenHidden: true };
    this.panel = restored ?? vscode.window.createWebviewPanel(
      VIEW_TYPE,
      `Canvas: ${opened.uri.path.split('/').pop()}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      options,
    );
    if (restored) {
      restored.webview.options = options;
      restored.title = `Canvas: ${opened.uri.path.split('/').pop()}`;
    }
    this.panel.iconPath = vscode.Uri.joinPath(extensionUri, 'images', 'activitybar.svg');
    const webview = this.panel.webview;
    webview.html = canvasHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce((n) => crypto.randomBytes(n)),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'canvas.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'canvas.css')).toString(),
    });
    this.disposables.push(
      webview.onDidReceiveMessage((m) => void this.onMessage(m)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (this.isMine(e.document) && e.contentChanges.length > 0) {
          this.opened = e.document;
          this.changedAt = Date.now();
          this.clock.changed(e.document.version, this.changedAt);
          void this.refresh();
        }
      }),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (this.isMine(e.textEditor.document)) {
          const at = e.selections[0].active;
          this.post({ type: 'cursor', id: nodeAt(this.graph, at.line, at.character) ?? null });
        }
      }),
      model.onDidChange(() => void this.sendRun()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.sendConfig()),
      server.onDidChangeState((state) => state === 'running' && void this.refresh()),
      stops.onDidChange(() => this.sendDebug()),
      vscode.debug.onDidChangeBreakpoints(() => this.sendDebug()),
      // the yardstick of the canvas's latency: the same edit's diagnostics round trip
      vscode.languages.onDidChangeDiagnostics((e) => {
        if (this.changedAt !== undefined && e.uris.some((u) => u.toString() === this.uri)) {
          const now = Date.now();
          getLog().info(`Canvas: the edit's diagnostics came after ${now - this.changedAt} ms (at ${now})`);
          this.changedAt = undefined;
        }
      }),
      // closed and opened again (a new TextDocument object): follow the new one
      vscode.workspace.onDidOpenTextDocument((d) => {
        if (this.isMine(d)) {
          this.opened = d;
          void this.refresh();
        }
      }),
    );
    this.panel.onDidDispose(() => {
      this.disposables.forEach((d) => d.dispose());
      onDisposed();
    });
  }

  /** The design's text document: the one open now (reopening makes a new object), else the last one seen. */
  private get document(): vscode.TextDocument {
    return vscode.workspace.textDocuments.find((d) => this.isMine(d)) ?? this.opened;
  }

  private isMine(document: vscode.TextDocument): boolean {
    return document.uri.toString() === this.uri;
  }

  pin(runId: string | undefined): void {
    this.pinned = runId;
    this.lastRunKey = '';
    void this.sendRun();
  }

  reveal(): void {
    this.panel.reveal(vscode.ViewColumn.Beside, true);
  }

  get active(): boolean {
    return this.panel.active;
  }

  /** When the canvas page last got the focus (0: never). */
  focusedAt = 0;

  /** Ctrl+Z / Ctrl+Shift+Z the workbench got for this canvas: the page decides (a text box's own, else the design's). */
  undoKey(which: 'undo' | 'redo'): void {
    this.post({ type: 'undoKey', which });
  }

  dispose(): void {
    this.panel.dispose();
  }

  private post(message: HostMessage): void {
    if (this.ready) {
      void this.panel.webview.postMessage(message);
    }
  }

  private sendConfig(): void {
    const trusted = isTrusted();
    this.post({ type: 'config', config: { editable: true, runsEnabled: trusted, answerable: trusted, debuggable: trusted } });
  }

  /** Where a debug session is stopped on this design, and the steps with a breakpoint (debug.ts). */
  private sendDebug(): void {
    this.post({ type: 'debug', ...canvasDebugState(this.document, this.graph?.nodes ?? [], this.stops) });
  }

  /** One `hwf.graph` in flight at a time; edits meanwhile ask once more after it. */
  private async refresh(): Promise<void> {
    if (this.inFlight) {
      this.again = true;
      return;
    }
    this.inFlight = true;
    let behind = 0;
    try {
      do {
        this.again = false;
        const answer = await this.server.execute(ServerCommand.graph, [this.document.uri.toString()], { quiet: true });
        const graph = asGraphView(answer);
        if (graph && graph.version !== null && graph.version < this.document.version && behind < 3) {
          behind += 1;
          this.again = true; // an answer for text the editor has moved past: ask again
        }
        if (graph) {
          this.graph = graph;
          this.seq += 1;
          this.clock.sentAs(this.seq, graph.version, Date.now());
          this.post({ type: 'graph', graph, seq: this.seq });
          void this.sendRun();
          this.sendDebug();
        }
      } while (this.again);
    } catch (error) {
      getLog().warn(`Canvas: hwf.graph failed: ${errorText(error)}`);
    } finally {
      this.inFlight = false;
    }
  }

  /** The newest run of this design, with each step's state and output preview. */
  private async sendRun(): Promise<void> {
    const name = designNameFor(this.graph, this.document.fileName);
    const run: RunSummary | undefined = (this.pinned ? this.model.find(this.pinned) : undefined) ?? newestRunOf(this.model.runs, name);
    const key = run ? `${run.run_id}:${run.status}:${run.updated_at}:${JSON.stringify(run.step_states)}` : '';
    if (key === this.lastRunKey && key !== '') {
      return;
    }
    this.lastRunKey = key;
    const [file, changedAt] = run ? await Promise.all([readRunFile(run), runFileMtime(run)]) : [undefined, undefined];
    const steps = run ? stepsOfRun(file, run) : [];
    this.runSeq += 1;
    this.runSent = run && changedAt !== undefined ? { seq: this.runSeq, label: `${run.run_id} ${run.status}`, changedAt } : undefined;
    this.post({ type: 'run', run: run ?? null, steps, pinned: run !== undefined && run.run_id === this.pinned, seq: this.runSeq });
  }

  private async onMessage(raw: unknown): Promise<void> {
    const message = parseCanvasMessage(raw);
    if ('invalid' in message) {
      getLog().warn(`Canvas: dropped a message from the webview: ${message.invalid}`);
      return;
    }
    const uri = this.document.uri.toString();
    switch (message.type) {
      case 'ready': {
        this.ready = true;
        this.lastRunKey = '';
        this.sendConfig();
        const stored = this.state.get<unknown>(POSITIONS_KEY + uri);
        if (positionEntries(stored)) {
          this.post({ type: 'positions', entries: stored });
        }
        await this.refresh();
        return;
      }
      case 'positions':
        await this.state.update(POSITIONS_KEY + uri, message.entries satisfies PositionEntry[]);
        return;
      case 'undo':
      case 'redo':
        return this.undos.request(message.type);
      case 'focus':
        this.focusedAt = message.focused ? Date.now() : this.focusedAt;
        this.undos.focusChanged(message.focused);
        return;
      case 'export':
        return this.export(message.format, message.data);
      case 'runDrawn': {
        const sent = this.runSent;
        if (sent && sent.seq === message.seq) {
          this.runSent = undefined;
          getLog().info(`Canvas: run ${sent.label} drawn ${Date.now() - sent.changedAt} ms after its file changed`);
        }
        return;
      }
      case 'drawn': {
        const now = Date.now();
        const measured = this.clock.drawn(message.seq, now);
        if (measured) {
          // `at`: the wall clock, for a keydown → drawn measure taken outside (the e2e)
          getLog().info(`Canvas: version ${measured.version} drawn ${measured.ms} ms after the edit (its graph came after ${measured.graphMs ?? '?'} ms; the canvas drew it in ${message.ms ?? '?'} ms) at ${now}`);
        }
        return;
      }
      case 'reveal':
        return this.revealNode(message.id);
      case 'newest':
        return this.pin(undefined);
      case 'edit': {
        // queued: a gesture's edits (two nodes deleted at once) each apply to the text the previous one left
        const { command, args } = editCommand(uri, message);
        this.edits = this.edits.then(async () => {
          // the server edits the open document: a closed text editor's document is opened again (no editor shown)
          this.opened = await vscode.workspace.openTextDocument(this.opened.uri);
          await this.send(command, args, message);
        });
        await this.edits;
        return;
      }
      case 'run': {
        const runId = 'runId' in message ? message.runId : undefined;
        const run = runId === undefined ? undefined : this.model.find(runId);
        const refused = foreignRun({ action: message.action, runId }, run ? run.name : undefined, designNameFor(this.graph, this.document.fileName));
        if (refused) {
          getLog().warn(`Canvas: dropped a ${message.action} request from the webview: ${refused}`);
          return;
        }
        const { command, args } = runCommand(uri, message);
        await this.send(command, args);
        return;
      }
      case 'step':
        await vscode.commands.executeCommand(UiCommand.showStep, message.runId, message.id);
        return;
      case 'complete':
        return this.complete(message);
      case 'breakpoint':
        return toggleNodeBreakpoint(this.document, this.graph?.nodes ?? [], message.id);
    }
  }

  /** The inspector's expression completion: the server's items (`hwf.completeExpression`); none when it cannot answer (logged, never shown). */
  private async complete(request: { request: number; id: string; text: string; offset: number }): Promise<void> {
    const { command, args } = completeCommand(this.document.uri.toString(), request);
    let answer: unknown;
    try {
      answer = await this.server.execute(command, args, { quiet: true });
    } catch (error) {
      getLog().warn(`Canvas: ${command} failed: ${errorText(error)}`);
    }
    this.post({ type: 'completions', request: request.request, items: expressionItems(answer) });
  }

  private async send(command: string, args: unknown[], edit?: EditRequest): Promise<void> {
    try {
      const answer = await this.server.execute(command, args);
      if (edit && typeof answer === 'object' && answer !== null && (answer as { applied?: unknown }).applied === false) {
        this.post({ type: 'notice', text: editFailureText(edit, 'the text changed meanwhile: try again') });
      } else {
        this.post({ type: 'notice', text: '' });
      }
    } catch (error) {
      // the log has the command and its arguments; the canvas says it for people
      this.post({ type: 'notice', text: edit ? editFailureText(edit, errorText(error)) : errorText(error) });
    }
  }

  /** Ctrl+Z in the canvas: the text document's own undo (model/undoRelay.ts), so the canvas and the editor share one history. */
  private async focusText(): Promise<void> {
    const visible = vscode.window.visibleTextEditors.find((e) => this.isMine(e.document));
    await vscode.window.showTextDocument(this.document, { viewColumn: visible?.viewColumn ?? vscode.ViewColumn.One, preserveFocus: false });
  }

  /** The image the canvas drew, saved where the user picks (beside the design by default). */
  private async export(format: 'png' | 'svg', data: string): Promise<void> {
    const base = this.document.uri.path.replace(/\.hwf\.json$|\.json$/i, '');
    const target = await vscode.window.showSaveDialog({
      defaultUri: this.document.uri.with({ path: `${base}.${format}` }),
      filters: format === 'png' ? { 'PNG image': ['png'] } : { 'SVG image': ['svg'] },
      title: `Export the canvas as ${format.toUpperCase()}`,
    });
    if (!target) {
      return;
    }
    const bytes = format === 'svg' ? Buffer.from(data, 'utf8') : Buffer.from(data.replace(/^data:image\/png;base64,/, ''), 'base64');
    await vscode.workspace.fs.writeFile(target, bytes);
    getLog().info(`Canvas: exported ${target.fsPath} (${bytes.length} bytes)`);
    void vscode.window.showInformationMessage(`Canvas exported to ${vscode.workspace.asRelativePath(target)}`);
  }

  /**
   * Shows the node's JSON in the text editor beside the canvas (the canvas keeps focus):
   * its object scrolled into view, its id selected (a one-line selection: the view does
   * not scroll sideways to a long prompt).
   */
  private async revealNode(id: string): Promise<void> {
    const node = this.graph?.nodes.find((n) => n.id === id);
    if (!node?.range) {
      return;
    }
    const toRange = (r: { start: { line: number; character: number }; end: { line: number; character: number } }) =>
      new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
    const object = toRange(node.range);
    const idRange = node.id_range ? toRange(node.id_range) : new vscode.Range(object.start, object.start);
    const visible = vscode.window.visibleTextEditors.find((e) => this.isMine(e.document));
    const editor = await vscode.window.showTextDocument(this.document, {
      viewColumn: visible?.viewColumn ?? vscode.ViewColumn.One,
      preserveFocus: true,
    });
    editor.selection = new vscode.Selection(idRange.start, idRange.end);
    editor.revealRange(object, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }
}
