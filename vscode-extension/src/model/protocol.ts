/**
 * The messages between the canvas and its host (the VS Code extension through
 * postMessage, or the Hermes dashboard's fetch adapter). One spelling for both sides.
 */
import { ServerCommand } from './constants';
import type { RunSummary, StepInfo } from './runModel';
import type { GraphView } from './graphModel';

/** The edit commands of the contract (`hwf.edit.<name>`), with their arguments after the uri. */
export type EditRequest =
  | { edit: 'connect'; from: string; to: string }
  | { edit: 'disconnect'; from: string; to: string }
  | { edit: 'addNode'; kind: string; after: string | null }
  | { edit: 'deleteNode'; id: string }
  | { edit: 'renameNode'; id: string; newId: string }
  | { edit: 'setField'; id: string; field: string; value: unknown }
  | { edit: 'removeField'; id: string; field: string };

/** One completion of a condition's expression (`hwf.completeExpression`, docs/commands.md): accepting it replaces [start, end) of the expression, in UTF-16 code units, with `text`. */
export interface ExpressionItem {
  label: string;
  kind: string;
  text: string;
  start: number;
  end: number;
  detail?: string;
  documentation?: string;
}

export type RunRequest =
  | { action: 'start' }
  | { action: 'fromHere'; id: string }
  | { action: 'answer'; runId: string; choice: string }
  | { action: 'respond'; runId: string; output: string }
  | { action: 'cancel'; runId: string };

/** Canvas → host. */
export type CanvasMessage =
  | { type: 'ready' }
  /** Graph message `seq` is on screen; `ms`: since the canvas received it (its own share of the latency). */
  | { type: 'drawn'; seq: number; ms?: number }
  /** The run message `seq` is on screen (the host measures run file change → canvas). */
  | { type: 'runDrawn'; seq: number }
  | { type: 'reveal'; id: string }
  /** Back to the newest run of the design (after one picked in the Runs view). */
  | { type: 'newest' }
  /** Open a step's detail (`hwf.showStep`): its state, times, attempts, context, output. */
  | { type: 'step'; runId: string; id: string }
  | ({ type: 'edit' } & EditRequest)
  | ({ type: 'run' } & RunRequest)
  /** Where the nodes are (kept outside the design: the host stores them per document). */
  | { type: 'positions'; entries: PositionEntry[] }
  /** Ctrl+Z / Ctrl+Shift+Z in the canvas: the document's own undo and redo. */
  | { type: 'undo' }
  | { type: 'redo' }
  /** The canvas page got or lost the focus (VS Code: its undo and redo wait for it, model/undoRelay.ts). */
  | { type: 'focus'; focused: boolean }
  /** The drawn graph as an image: SVG text, or a PNG as a `data:` URL. */
  | { type: 'export'; format: 'png' | 'svg'; data: string }
  /** The inspector asks what may be typed at `offset` of node `id`'s `field` (its expression): answered by `completions` with the same `request`. */
  | { type: 'complete'; request: number; id: string; field: string; text: string; offset: number }
  /** Add or remove the breakpoint on node `id` (its first line; the host's debugger). */
  | { type: 'breakpoint'; id: string };

/** A node's key and top-left corner (an array, so no id is ever an object key). */
export type PositionEntry = [string, number, number];

/** What the canvas may offer (VS Code and the dashboard offer all of it; a host may offer less). */
export interface CanvasConfig {
  editable: boolean;
  runsEnabled: boolean;
  /** Answer / respond in place (true wherever runs are shown). */
  answerable: boolean;
  /** Breakpoints on nodes can be toggled (a host with a debugger: VS Code). */
  debuggable?: boolean;
}

/** Host → canvas. */
export type HostMessage =
  /** Ctrl+Z / Ctrl+Shift+Z the workbench got while the canvas was its active editor: the page's own undo in a text box, else the document's (main.tsx). */
  | { type: 'undoKey'; which: 'undo' | 'redo' }
  | { type: 'graph'; graph: GraphView; seq: number }
  | { type: 'run'; run: RunSummary | null; steps: StepInfo[]; pinned?: boolean; seq?: number }
  | { type: 'cursor'; id: string | null }
  | { type: 'config'; config: CanvasConfig }
  | { type: 'notice'; text: string }
  /** The positions stored for this document (sent before its first graph). */
  | { type: 'positions'; entries: PositionEntry[] }
  /** The server's items for the `complete` message `request` (none when it could not answer). */
  | { type: 'completions'; request: number; items: ExpressionItem[] }
  /** The debugger: the node a session is stopped before (none: not stopped here), the steps with a breakpoint. */
  | { type: 'debug'; stopped: string | null; breakpoints: string[] };

/** Where the canvas lives: it only ever talks to this. */
export interface Host {
  post(message: CanvasMessage): void;
  /** Subscribes; returns the unsubscribe. */
  onMessage(listener: (message: HostMessage) => void): () => void;
}

/** The server command and its arguments for one edit on `uri` (docs/commands.md, "Canvas"). */
export function editCommand(uri: string, request: EditRequest): { command: string; args: unknown[] } {
  switch (request.edit) {
    case 'connect':
    case 'disconnect':
      return { command: `hwf.edit.${request.edit}`, args: [uri, request.from, request.to] };
    case 'addNode':
      return { command: 'hwf.edit.addNode', args: [uri, request.kind, request.after] };
    case 'deleteNode':
      return { command: 'hwf.edit.deleteNode', args: [uri, request.id] };
    case 'renameNode':
      return { command: 'hwf.edit.renameNode', args: [uri, request.id, request.newId] };
    case 'setField':
      return { command: 'hwf.edit.setField', args: [uri, request.id, request.field, request.value] };
    case 'removeField':
      return { command: 'hwf.edit.removeField', args: [uri, request.id, request.field] };
  }
}

/** The server command that completes the inspector's expression (docs/commands.md, `hwf.completeExpression`). */
export function completeCommand(uri: string, request: { id: string; text: string; offset: number }): { command: string; args: unknown[] } {
  return { command: 'hwf.completeExpression', args: [uri, request.id, request.text, request.offset] };
}

/** The items of a `hwf.completeExpression` answer (or the dashboard route's); anything malformed is left out. */
export function expressionItems(answer: unknown): ExpressionItem[] {
  const items = typeof answer === 'object' && answer !== null ? (answer as { items?: unknown }).items : undefined;
  if (!Array.isArray(items)) {
    return [];
  }
  return items.filter((i): i is ExpressionItem => {
    if (typeof i !== 'object' || i === null) return false;
    const item = i as Record<string, unknown>;
    return str(item.label) && str(item.kind) && str(item.text) && Number.isInteger(item.start) && Number.isInteger(item.end) &&
      (item.detail === undefined || str(item.detail)) && (item.documentation === undefined || str(item.documentation));
  });
}

/** The server command for one run request on the design `uri`. */
export function runCommand(uri: string, request: RunRequest): { command: string; args: unknown[] } {
  switch (request.action) {
    case 'start':
      return { command: ServerCommand.startRun, args: [uri] };
    case 'fromHere':
      return { command: ServerCommand.runFromHere, args: [uri, request.id] };
    case 'answer':
      return { command: ServerCommand.answerApproval, args: [request.runId, request.choice] };
    case 'respond':
      return { command: ServerCommand.respondAgent, args: [request.runId, { output: request.output }] };
    case 'cancel':
      return { command: ServerCommand.cancelRun, args: [request.runId] };
  }
}

const EDITS = new Set(['connect', 'disconnect', 'addNode', 'deleteNode', 'renameNode', 'setField', 'removeField']);
const ACTIONS = new Set(['start', 'fromHere', 'answer', 'respond', 'cancel']);
const str = (v: unknown): v is string => typeof v === 'string';

/**
 * A message from the webview, checked: the webview is our code, but a message is data
 * and a wrong one is dropped (with why) rather than sent to the server half-formed.
 */
export function parseCanvasMessage(value: unknown): CanvasMessage | { invalid: string } {
  if (typeof value !== 'object' || value === null) {
    return { invalid: 'not an object' };
  }
  const m = value as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
      return { type: 'ready' };
    case 'newest':
    case 'undo':
    case 'redo':
      return { type: m.type };
    case 'focus':
      return typeof m.focused === 'boolean' ? { type: 'focus', focused: m.focused } : { invalid: 'focus without focused' };
    case 'positions':
      return positionEntries(m.entries) ? { type: 'positions', entries: m.entries } : { invalid: 'positions that are not [key, x, y] entries' };
    case 'export':
      return (m.format === 'png' || m.format === 'svg') && str(m.data) ? { type: 'export', format: m.format, data: m.data } : { invalid: 'bad export' };
    case 'drawn':
      return typeof m.seq === 'number' ? { type: 'drawn', seq: m.seq, ...(typeof m.ms === 'number' ? { ms: m.ms } : {}) } : { invalid: 'drawn without seq' };
    case 'runDrawn':
      return typeof m.seq === 'number' ? { type: m.type, seq: m.seq } : { invalid: `${String(m.type)} without seq` };
    case 'reveal':
      return str(m.id) ? { type: 'reveal', id: m.id } : { invalid: 'reveal without id' };
    case 'breakpoint':
      return str(m.id) ? { type: 'breakpoint', id: m.id } : { invalid: 'breakpoint without id' };
    case 'step':
      return str(m.id) && str(m.runId) ? { type: 'step', runId: m.runId, id: m.id } : { invalid: 'step without runId and id' };
    case 'complete':
      return typeof m.request === 'number' && str(m.id) && str(m.field) && str(m.text) && Number.isInteger(m.offset)
        ? { type: 'complete', request: m.request, id: m.id, field: m.field, text: m.text, offset: m.offset as number }
        : { invalid: 'complete without request, id, field, text and offset' };
    case 'edit':
      return EDITS.has(String(m.edit)) && editArgsOk(m) ? (m as CanvasMessage) : { invalid: `bad edit ${String(m.edit)}` };
    case 'run':
      return ACTIONS.has(String(m.action)) && runArgsOk(m) ? (m as CanvasMessage) : { invalid: `bad run request ${String(m.action)}` };
    default:
      return { invalid: `unknown message type ${String(m.type)}` };
  }
}

function editArgsOk(m: Record<string, unknown>): boolean {
  switch (m.edit) {
    case 'connect':
    case 'disconnect':
      return str(m.from) && str(m.to);
    case 'addNode':
      return str(m.kind) && (m.after === null || str(m.after));
    case 'deleteNode':
      return str(m.id);
    case 'renameNode':
      return str(m.id) && str(m.newId);
    case 'removeField':
      return str(m.id) && str(m.field);
    default:
      return str(m.id) && str(m.field) && 'value' in m;
  }
}

function runArgsOk(m: Record<string, unknown>): boolean {
  switch (m.action) {
    case 'fromHere':
      return str(m.id);
    case 'answer':
      return str(m.runId) && str(m.choice);
    case 'respond':
      return str(m.runId) && str(m.output);
    case 'cancel':
      return str(m.runId);
    default:
      return true;
  }
}

/** `[key, x, y]` entries with finite numbers. */
export function positionEntries(value: unknown): value is PositionEntry[] {
  return Array.isArray(value) && value.every((e) => Array.isArray(e) && e.length === 3 && str(e[0]) && Number.isFinite(e[1]) && Number.isFinite(e[2]));
}

/**
 * A refused edit for the user: what they tried, and the server's reason without the
 * command's name or its argument list (those are for the log).
 */
export function editFailureText(request: EditRequest, error: string): string {
  const reason = error
    .replace(/^hwf\.edit\.\w+:\s*/, '')
    .replace(/;\s*arguments:\s*\[[^\]]*\]\s*$/, '')
    .trim();
  switch (request.edit) {
    case 'connect':
      return /cycle/.test(reason)
        ? `Connecting ${request.from} → ${request.to} would make a cycle: ${reason.replace(/^.*?cannot run after .*?: (.*?),? that would make a cycle\.?$/, '$1')}`
        : `Cannot connect ${request.from} → ${request.to}: ${reason}`;
    case 'disconnect':
      return `Cannot remove the edge ${request.from} → ${request.to}: ${reason}`;
    case 'addNode':
      return `Cannot add ${/^[aeiou]/.test(request.kind) ? 'an' : 'a'} ${request.kind} node: ${reason}`;
    case 'deleteNode':
      return `Cannot delete ${request.id}: ${reason}`;
    case 'renameNode':
      return `Cannot rename ${request.id} to ${request.newId}: ${reason}`;
    case 'setField':
      return `Cannot set ${request.field} of ${request.id}: ${reason}`;
    case 'removeField':
      return `Cannot remove ${request.field} of ${request.id}: ${reason}`;
  }
}
