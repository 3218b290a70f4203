/**
 * What a run looks like to the user, computed from the run summary and the run file
 * (`$HERMES_HOME/workflow-runs/<run_id>.json`). Pure: no VS Code API, so it is unit
 * tested with node's test runner and reused by the Runs view and the status bar.
 */

export type RunStatus =
  | 'running'
  | 'awaiting_agent'
  | 'awaiting_approval'
  | 'completed'
  | 'failed'
  | 'cancelled';

export interface PendingInfo {
  kind?: string;
  node?: string;
  prompt?: string;
  question?: string;
  options?: unknown;
  context?: unknown;
  waiting_since?: string;
  correlation_id?: string;
}

/** The run summary every server command answers with (docs/commands.md). */
export interface RunSummary {
  run_id: string;
  name: string;
  status: RunStatus | string;
  cursor?: number;
  steps?: unknown;
  pending?: PendingInfo | null;
  error?: string | null;
  updated_at?: string | number | null;
  base_run?: string | null;
  from_node?: string | null;
  path?: string;
  notices?: unknown;
  /** `[{id, type, status}]` in plan order (the server's summary), when it sends it. */
  step_states?: unknown;
}

export const PARKED: ReadonlySet<string> = new Set(['awaiting_agent', 'awaiting_approval']);
export const ACTIVE: ReadonlySet<string> = new Set(['running', 'awaiting_agent', 'awaiting_approval']);

const STATUS_LABELS: Record<string, string> = {
  running: 'running',
  awaiting_agent: 'awaiting agent',
  awaiting_approval: 'awaiting approval',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

export function statusLabel(status: string): string {
  return STATUS_LABELS[status] ?? status;
}

/** Codicon id per run status (ThemeIcon ids). */
export function statusIcon(status: string): string {
  switch (status) {
    case 'completed':
      return 'pass';
    case 'failed':
      return 'error';
    case 'running':
      return 'sync~spin';
    case 'awaiting_agent':
      return 'watch';
    case 'awaiting_approval':
      return 'debug-pause';
    case 'cancelled':
      return 'circle-slash';
    default:
      return 'circle-outline';
  }
}

/** Theme color id per run status, or undefined for the default foreground. */
export function statusColor(status: string): string | undefined {
  switch (status) {
    case 'completed':
      return 'testing.iconPassed';
    case 'failed':
      return 'testing.iconFailed';
    case 'awaiting_agent':
    case 'awaiting_approval':
      return 'charts.yellow';
    default:
      return undefined;
  }
}

/** The options an approval may be answered with (the server's default when absent). */
export function approvalOptions(pending: PendingInfo | null | undefined): string[] {
  const options = pending?.options;
  if (Array.isArray(options) && options.length > 0 && options.every((o) => typeof o === 'string')) {
    return options as string[];
  }
  return ['approve', 'reject'];
}

export type StepState = 'done' | 'reused' | 'answered' | 'skipped' | 'waiting' | 'failed' | 'not-run';

export interface StepInfo {
  id: string;
  kind: string;
  title?: string;
  state: StepState;
  /** One line for the tree: the output (or why skipped / what it waits for). */
  preview: string;
  /** The whole output, pretty-printed and capped, for the tooltip. */
  detail: string;
}

interface DesignNode {
  id: string;
  type: string;
  title?: string;
  after: string[];
}

const STEP_KINDS: ReadonlySet<string> = new Set(['agent', 'condition', 'approval', 'output']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function designNodes(design: unknown): DesignNode[] {
  if (!isObject(design) || !Array.isArray(design.nodes)) {
    return [];
  }
  const nodes: DesignNode[] = [];
  for (const raw of design.nodes) {
    if (!isObject(raw) || typeof raw.id !== 'string' || typeof raw.type !== 'string') {
      continue;
    }
    const after = Array.isArray(raw.after) ? raw.after.filter((p): p is string => typeof p === 'string') : [];
    nodes.push({
      id: raw.id,
      type: raw.type,
      title: typeof raw.title === 'string' ? raw.title : undefined,
      after,
    });
  }
  return nodes;
}

/**
 * The steps of a design in run order: the server's plan (Kahn's algorithm; among
 * the ready steps the one earlier in `nodes` first). Triggers and notes are dropped.
 * A cycle leaves its steps at the end in file order rather than losing them.
 */
export function planOrder(design: unknown): DesignNode[] {
  const steps = designNodes(design).filter((n) => STEP_KINDS.has(n.type));
  const position = new Map<string, number>();
  steps.forEach((s, i) => {
    if (!position.has(s.id)) {
      position.set(s.id, i);
    }
  });
  const waiting = steps.map(() => 0);
  const children: number[][] = steps.map(() => []);
  steps.forEach((step, i) => {
    for (const parent of new Set(step.after)) {
      const p = position.get(parent);
      if (p !== undefined && p !== i) {
        waiting[i] += 1;
        children[p].push(i);
      }
    }
  });
  const ready: number[] = [];
  waiting.forEach((count, i) => count === 0 && ready.push(i));
  const order: number[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => a - b);
    const current = ready.shift() as number;
    order.push(current);
    for (const child of children[current]) {
      waiting[child] -= 1;
      if (waiting[child] === 0) {
        ready.push(child);
      }
    }
  }
  const placed = new Set(order);
  steps.forEach((_, i) => placed.has(i) || order.push(i));
  return order.map((i) => steps[i]);
}

/** `node` and every node that runs after it, directly or not. */
export function descendants(design: unknown, node: string): Set<string> {
  const nodes = designNodes(design);
  const result = new Set<string>([node]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const n of nodes) {
      if (!result.has(n.id) && n.after.some((p) => result.has(p))) {
        result.add(n.id);
        grew = true;
      }
    }
  }
  return result;
}

const PREVIEW_LENGTH = 80;
const DETAIL_LENGTH = 4000;

/** A value as one short line: strings as they are, everything else as compact JSON. */
export function previewOf(value: unknown, length = PREVIEW_LENGTH): string {
  let text: string;
  if (typeof value === 'string') {
    text = value;
  } else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

function detailOf(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2) ?? String(value);
  return text.length > DETAIL_LENGTH ? `${text.slice(0, DETAIL_LENGTH - 1)}…` : text;
}

/** The last log detail the runner wrote for `node` with `event`, if any. */
function lastLogDetail(log: unknown, node: string, event: string): string | undefined {
  if (!Array.isArray(log)) {
    return undefined;
  }
  for (let i = log.length - 1; i >= 0; i -= 1) {
    const entry = log[i];
    if (isObject(entry) && entry.node === node && entry.event === event) {
      return typeof entry.detail === 'string' ? entry.detail : previewOf(entry.detail);
    }
  }
  return undefined;
}

/** The steps of a run, in plan order, each with what happened to it. */
export function stepsOfRun(runFile: unknown, summary: RunSummary): StepInfo[] {
  const state = isObject(runFile) ? runFile : {};
  const outputs = isObject(state.outputs) ? state.outputs : {};
  const skipped = new Set(Array.isArray(state.skipped) ? state.skipped.filter((s) => typeof s === 'string') : []);
  const answers = isObject(state.answers) ? state.answers : {};
  const status = typeof state.status === 'string' ? state.status : summary.status;
  const pending = (isObject(state.pending) ? state.pending : summary.pending ?? null) as PendingInfo | null;
  const fromNode = typeof state.from_node === 'string' ? state.from_node : summary.from_node ?? undefined;
  const baseRun = typeof state.base_run === 'string' ? state.base_run : summary.base_run ?? undefined;
  const rerun = fromNode && baseRun ? descendants(state.design, fromNode) : undefined;

  if (!isObject(state.design)) {
    return stepsFromSummary(summary);
  }
  return planOrder(state.design).map((node): StepInfo => {
    const base = { id: node.id, kind: node.type, title: node.title };
    if (pending && pending.node === node.id && PARKED.has(status)) {
      const waitingFor = node.type === 'approval'
        ? `waiting for an answer: ${pending.question ?? ''}`.trim()
        : 'waiting for an agent response';
      return { ...base, state: 'waiting', preview: waitingFor, detail: detailOf(pending.question ?? pending.prompt ?? '') };
    }
    if (skipped.has(node.id)) {
      const why = lastLogDetail(state.log, node.id, 'skipped')
        ?? (Object.prototype.hasOwnProperty.call(answers, node.id) ? `answered ${previewOf(answers[node.id])}` : 'skipped');
      return { ...base, state: 'skipped', preview: why, detail: why };
    }
    if (Object.prototype.hasOwnProperty.call(outputs, node.id)) {
      const output = outputs[node.id];
      if (rerun && !rerun.has(node.id)) {
        return { ...base, state: 'reused', preview: `reused from ${baseRun}: ${previewOf(output)}`, detail: detailOf(output) };
      }
      if (Object.prototype.hasOwnProperty.call(answers, node.id)) {
        return { ...base, state: 'answered', preview: `answered ${previewOf(answers[node.id])}`, detail: detailOf(output) };
      }
      return { ...base, state: 'done', preview: previewOf(output), detail: detailOf(output) };
    }
    const failure = status === 'failed' ? lastLogDetail(state.log, node.id, 'failed') : undefined;
    if (failure !== undefined) {
      return { ...base, state: 'failed', preview: failure, detail: failure };
    }
    return { ...base, state: 'not-run', preview: status === 'cancelled' ? 'not run (cancelled)' : 'not run yet', detail: '' };
  });
}

/** Steps from the summary's `step_states` alone (no run file, or no design snapshot in it). */
function stepsFromSummary(summary: RunSummary): StepInfo[] {
  const states = Array.isArray(summary.step_states) ? summary.step_states : [];
  const byStatus: Record<string, StepState> = { done: 'done', skipped: 'skipped', waiting: 'waiting', failed: 'failed' };
  return states.filter(isObject).filter((s) => typeof s.id === 'string').map((s) => {
    const state = byStatus[String(s.status)] ?? 'not-run';
    return {
      id: s.id as string,
      kind: typeof s.type === 'string' ? s.type : '',
      state,
      preview: state === 'not-run' ? 'not run yet' : state,
      detail: '',
    };
  });
}

export function stepIcon(state: StepState): string {
  switch (state) {
    case 'done':
      return 'pass';
    case 'answered':
      return 'pass-filled';
    case 'reused':
      return 'history';
    case 'skipped':
      return 'debug-step-over';
    case 'waiting':
      return 'debug-pause';
    case 'failed':
      return 'error';
    default:
      return 'circle-outline';
  }
}

/** The newest run of a design (runs come newest first from the server). */
export function newestRunOf(runs: readonly RunSummary[], design: string): RunSummary | undefined {
  return runs.find((run) => run.name === design);
}

/** "3 min ago" style age of an ISO or epoch timestamp. */
export function ageOf(stamp: string | number | null | undefined, now: number = Date.now()): string {
  if (stamp === null || stamp === undefined || stamp === '') {
    return '';
  }
  const ms = typeof stamp === 'number' ? (stamp < 1e12 ? stamp * 1000 : stamp) : Date.parse(stamp);
  if (Number.isNaN(ms)) {
    return '';
  }
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  if (seconds < 45) {
    return 'just now';
  }
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) {
    return `${minutes} min ago`;
  }
  const hours = Math.round(minutes / 60);
  if (hours < 36) {
    return `${hours} h ago`;
  }
  return `${Math.round(hours / 24)} d ago`;
}

/** Notices the server attached to a result (stale upstream, no base run). */
export function noticesOf(result: unknown): string[] {
  if (!isObject(result) || !Array.isArray(result.notices)) {
    return [];
  }
  return result.notices.map((n) => (typeof n === 'string' ? n : previewOf(n, 300)));
}

/** A run summary from whatever a command answered, or undefined. */
export function asRunSummary(value: unknown): RunSummary | undefined {
  if (isObject(value) && typeof value.run_id === 'string' && typeof value.status === 'string') {
    return value as unknown as RunSummary;
  }
  return undefined;
}

/** The runs list from a `hwf.listRuns` answer or a `hwf/runsChanged` notification. */
export function runsOf(value: unknown): RunSummary[] {
  const list = isObject(value) ? value.runs : value;
  if (!Array.isArray(list)) {
    return [];
  }
  return list.map(asRunSummary).filter((r): r is RunSummary => r !== undefined);
}

/** At most this many runs are kept (what `hwf.listRuns` answers). */
export const MAX_KEPT_RUNS = 200;

/**
 * The runs list after one `hwf/runsChanged` (docs/commands.md): a full list
 * (`{runs}`) replaces it; a delta (`{changed, removed}`) puts each changed run first
 * (a changed run is the newest: its writer just stamped it) and drops the removed ones.
 */
export function applyRunsChanged(list: readonly RunSummary[], payload: unknown): RunSummary[] {
  if (!isObject(payload) || Array.isArray(payload.runs) || !('changed' in payload || 'removed' in payload)) {
    return runsOf(payload);
  }
  const changed = runsOf(payload.changed);
  const removed = new Set(Array.isArray(payload.removed) ? payload.removed.filter((r) => typeof r === 'string') : []);
  const fresh = new Set(changed.map((r) => r.run_id));
  const rest = list.filter((r) => !fresh.has(r.run_id) && !removed.has(r.run_id));
  return [...changed, ...rest].slice(0, MAX_KEPT_RUNS);
}
