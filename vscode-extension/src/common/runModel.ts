/**
 * What a run looks like to the user, rendered from the run summary the server sends
 * (docs/commands.md: plan order, step states, approval options are its facts) and, for
 * previews only, the run file. Pure: no VS Code API, so it is unit tested with node's
 * test runner and reused by the Runs view and the status bar.
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
  /** An approval's options, resolved by the server (its own, else the defaults). */
  options?: string[];
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
  /** The stored design of the run's name, when that file exists (the server checks). */
  design_path?: string | null;
  notices?: unknown;
  /** `[{id, type, title, status, rerun?, answer?}]` in plan order (see StepSummary). */
  step_states?: unknown;
}

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

export type StepState = 'done' | 'reused' | 'answered' | 'skipped' | 'waiting' | 'failed' | 'not-run';

/** One entry of the summary's `step_states` (docs/commands.md): the server's facts. */
export interface StepSummary {
  id: string;
  type?: string | null;
  title?: string | null;
  /** done, reused, answered, skipped, waiting, failed; null when the step has not run. */
  status?: string | null;
  /** Only on a run from here: whether this step runs again (else its result is reused). */
  rerun?: boolean;
  /** Only on an `answered` approval: the choice. */
  answer?: unknown;
  /** When the step started and ended (ISO 8601), when the summary gives them. */
  started_at?: string | null;
  ended_at?: string | null;
}

export interface StepInfo {
  id: string;
  kind: string;
  title?: string;
  state: StepState;
  /** One line for the tree: the output (or why skipped / what it waits for). */
  preview: string;
  /** The whole output, pretty-printed and capped, for the tooltip. */
  detail: string;
  /** From the summary's `started_at` / `ended_at`, when it has them. */
  startedAt?: string;
  endedAt?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const STEP_STATES: ReadonlySet<string> = new Set(['done', 'reused', 'answered', 'skipped', 'waiting', 'failed']);

/** The summary's `step_states` that name a step (plan order, as the server sent them). */
export function stepStatesOf(summary: RunSummary): StepSummary[] {
  const states = Array.isArray(summary.step_states) ? summary.step_states : [];
  return states.filter(isObject).filter((s): s is StepSummary & Record<string, unknown> => typeof s.id === 'string');
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

/**
 * The steps of a run, in plan order, each with what happened to it: the states are the
 * server's (`summary.step_states`); the run file only adds previews of outputs and the
 * runner's reasons (skipped, failed). Without a run file the previews are the states.
 */
export function stepsOfRun(runFile: unknown, summary: RunSummary): StepInfo[] {
  const file = isObject(runFile) ? runFile : {};
  const outputs = isObject(file.outputs) ? file.outputs : {};
  const pending = summary.pending ?? undefined;
  const has = (id: string) => Object.prototype.hasOwnProperty.call(outputs, id);
  const outputOf = (id: string, fallback: string) =>
    has(id) ? { preview: previewOf(outputs[id]), detail: detailOf(outputs[id]) } : { preview: fallback, detail: '' };
  return stepStatesOf(summary).map((step): StepInfo => {
    const state = (STEP_STATES.has(String(step.status)) ? step.status : 'not-run') as StepState;
    const base = {
      id: step.id,
      kind: typeof step.type === 'string' ? step.type : '',
      title: typeof step.title === 'string' ? step.title : undefined,
      state,
      ...(typeof step.started_at === 'string' ? { startedAt: step.started_at } : {}),
      ...(typeof step.ended_at === 'string' ? { endedAt: step.ended_at } : {}),
    };
    switch (state) {
      case 'waiting': {
        const preview = step.type === 'approval'
          ? `waiting for an answer: ${pending?.question ?? ''}`.trim()
          : 'waiting for an agent response';
        return { ...base, preview, detail: detailOf(pending?.question ?? pending?.prompt ?? '') };
      }
      case 'skipped': {
        const why = lastLogDetail(file.log, step.id, 'skipped') ?? 'skipped';
        return { ...base, preview: why, detail: why };
      }
      case 'reused': {
        const output = outputOf(step.id, 'skipped');
        return { ...base, preview: `reused from ${summary.base_run ?? 'the base run'}: ${output.preview}`, detail: output.detail };
      }
      case 'answered':
        return { ...base, preview: `answered ${previewOf(step.answer)}`, detail: outputOf(step.id, '').detail };
      case 'done':
        return { ...base, ...outputOf(step.id, 'done') };
      case 'failed': {
        const why = lastLogDetail(file.log, step.id, 'failed') ?? summary.error ?? 'failed';
        return { ...base, preview: why, detail: why };
      }
      default:
        return { ...base, preview: summary.status === 'cancelled' ? 'not run (cancelled)' : 'not run yet', detail: '' };
    }
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
