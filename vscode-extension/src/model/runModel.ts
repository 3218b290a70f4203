/**
 * What a run looks like to the user, rendered from the run summary the server sends
 * (docs/commands.md: plan order, step states, approval options are its facts) and, for
 * previews only, the run file. Pure: no VS Code API, so it is unit tested with node's
 * test runner and reused by the Runs view and the status bar.
 */
import { exactTime, localTime, secondsText } from './timeWords';

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
  /** The run facts of each step, in plan order (see StepSummary). */
  step_states?: unknown;
  /** Steps finished / steps: the one progress convention (`"3/5"`, `"-"` without a plan). */
  progress?: string;
  finished?: number | null;
  created_at?: string | null;
  /** A debug run's mark in the engine's words (`debug run: 1 edit by the user`). */
  debug_mark?: string | null;
  /** A debug run's mark as its run file holds it: the outputs the user edited. */
  debug?: { edits?: DebugEdit[] } | null;
}

/** One output the user edited in the debugger (`setVariable`). */
export interface DebugEdit {
  node: string;
  path?: (string | number)[];
  old?: unknown;
  new?: unknown;
  at?: string;
}

/** `out.review.verdict: "approve" → "revise"`, each edit of a debug run, for a tooltip. */
export function debugEditsOf(run: RunSummary): string[] {
  return (run.debug?.edits ?? []).map((edit) =>
    `${['out', edit.node, ...(edit.path ?? [])].join('.')}: ${previewOf(JSON.stringify(edit.old) ?? 'null', 40)} → ${previewOf(JSON.stringify(edit.new) ?? 'null', 40)}`);
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

/**
 * A step's state: the server's word (`status` of a `step_states` entry, docs/commands.md,
 * the engine's run facts). The extension renders it and never works a state out.
 */
export type StepState =
  | 'done'
  | 'reused'
  | 'answered'
  | 'rejected'
  | 'skipped'
  | 'waiting'
  | 'failed'
  | 'not delivered'
  | 'running'
  | 'not run';

export const STEP_STATES: readonly StepState[] = [
  'done', 'reused', 'answered', 'rejected', 'skipped', 'waiting', 'failed', 'not delivered', 'running', 'not run',
];

/** One failed attempt of a step: its error and when. */
export interface AttemptInfo {
  error?: unknown;
  at?: string | null;
}

/** One entry of the summary's `step_states` (docs/commands.md): the server's run facts. */
export interface StepSummary {
  id: string;
  type?: string | null;
  title?: string | null;
  /** One of STEP_STATES (an older server may send null: not run). */
  status?: string | null;
  /** The status's icon and the label every surface shows (`✓ done`, `⚠ not delivered`). */
  icon?: string;
  label?: string;
  started_at?: string | null;
  ended_at?: string | null;
  /** Seconds the step sat parked (an agent's response, an approval): not part of the time it ran. */
  waited_s?: number | null;
  /** answered: the choice; rejected: reject. */
  answer?: unknown;
  /** skipped: false condition, skipped parent or rejected upstream; `detail` the runner's words. */
  why?: string | null;
  /** skipped parent, rejected upstream: the skipped parent it follows. */
  parent?: string | null;
  detail?: string | null;
  waiting_for?: string;
  since?: string | null;
  escalated?: boolean;
  /** failed: the run's error; not delivered: the receipt's. */
  error?: unknown;
  target?: string | null;
  attempts?: AttemptInfo[];
  base_run?: string | null;
  /** Only on a run from here: whether this step runs again (else its result is reused). */
  rerun?: boolean;
}

export interface StepInfo {
  id: string;
  kind: string;
  title?: string;
  state: StepState;
  /** The server's label for the state (`✓ done`, `⊘ rejected`, …). */
  label: string;
  /** One line for the tree: the output (or why skipped / what it waits for / the error). */
  preview: string;
  /** The whole output, pretty-printed and capped, for the tooltip. */
  detail: string;
  /** When it ran: `started …, ended … (took …)`, or '' when the run did not record it. */
  times: string;
  /** How long it took (`0.25 s`), '' when not recorded. */
  duration: string;
  /** The failed attempts, one line each. */
  attempts: string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const KNOWN_STATES: ReadonlySet<string> = new Set(STEP_STATES);

/** The summary's `step_states` that name a step (plan order, as the server sent them). */
export function stepStatesOf(summary: RunSummary): StepSummary[] {
  const states = Array.isArray(summary.step_states) ? summary.step_states : [];
  return states.filter(isObject).filter((s): s is StepSummary & Record<string, unknown> => typeof s.id === 'string');
}

/** The state word of a step entry: the server's; anything else (null, junk) reads "not run". */
export function stateOf(step: StepSummary): StepState {
  return (KNOWN_STATES.has(String(step.status)) ? step.status : 'not run') as StepState;
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

/** How long from `start` to `end` (ISO stamps) less `waited` seconds: `0.25 s`, `3 min 5 s`; '' when unknown. */
export function durationOf(start: string | null | undefined, end: string | null | undefined, waited?: number | null): string {
  const from = start ? Date.parse(start) : NaN;
  const to = end ? Date.parse(end) : NaN;
  if (Number.isNaN(from) || Number.isNaN(to) || to < from) {
    return '';
  }
  const less = typeof waited === 'number' && waited > 0 ? waited : 0;
  return secondsText(Math.max(0, (to - from) / 1000 - less));
}

function waitedOf(step: StepSummary): string {
  return typeof step.waited_s === 'number' && step.waited_s > 0 ? secondsText(step.waited_s) : '';
}

/** When a step ran, in local time: `started 18:56:10, ended 18:57:25 (ran 0.50 s, waited 1 min 15 s)`. */
export function timesOf(step: StepSummary, now: number = Date.now()): string {
  if (!step.started_at) {
    return '';
  }
  if (!step.ended_at) {
    return `started ${localTime(step.started_at, now)}`;
  }
  const ran = durationOf(step.started_at, step.ended_at, step.waited_s);
  const said = [ran ? `ran ${ran}` : '', waitedOf(step) ? `waited ${waitedOf(step)}` : ''].filter(Boolean).join(', ');
  return `started ${localTime(step.started_at, now)}, ended ${localTime(step.ended_at, now)}${said ? ` (${said})` : ''}`;
}

/** Since when a step waits: `since 18:56:10 (3 min ago)`, or '' without a time. */
function sinceOf(step: StepSummary, now: number): string {
  if (!step.since) {
    return '';
  }
  const notes = [ageOf(step.since, now), step.escalated ? 'escalated' : ''].filter(Boolean).join(', ');
  return `since ${localTime(step.since, now)}${notes ? ` (${notes})` : ''}`;
}

/**
 * Why a step was skipped, in words that say which parent and that a condition was false
 * (the facts' `why` alone read "skipped: skipped parent").
 */
function skipWords(step: StepSummary): string | null | undefined {
  const parent = typeof step.parent === 'string' ? step.parent : undefined;
  switch (step.why) {
    case 'false condition':
      return 'the condition was false: the steps after it do not run';
    case 'skipped parent':
      return parent ? `${parent} before it was skipped` : step.why;
    case 'rejected upstream':
      return parent ? `rejected upstream (via ${parent})` : step.why;
    default:
      return step.why;
  }
}

/** What the facts say beside the label: the error, why it skipped, what it waits for. */
function factText(step: StepSummary, summary: RunSummary, now: number): string {
  const state = stateOf(step);
  switch (state) {
    case 'not delivered':
      return `not delivered to ${step.target ?? 'a notification'}: ${String(step.error ?? '')}`;
    case 'failed':
      return String(step.error ?? summary.error ?? 'failed');
    case 'skipped':
      return [skipWords(step), step.detail].filter((p) => typeof p === 'string' && p !== '').join(': ') || 'skipped';
    case 'rejected':
      return step.detail ?? 'rejected';
    case 'waiting': {
      // the label already says "⏸ waiting for approval" / "for an agent": the question and since when
      const question = step.waiting_for === 'approval' ? summary.pending?.question ?? '' : '';
      return [question, sinceOf(step, now)].filter(Boolean).join(' · ') || 'waiting';
    }
    case 'answered':
      return `answered ${previewOf(step.answer)}`;
    case 'running':
      return 'running…';
    case 'not run':
      return summary.status === 'cancelled' ? 'not run (cancelled)' : 'not run';
    default:
      return state;
  }
}

/**
 * The steps of a run, in plan order, each with what happened to it: the states, labels,
 * reasons, errors and times are the server's (`summary.step_states`, the engine's run
 * facts); the run file only adds previews of outputs. Nothing here works a state out.
 */
export function stepsOfRun(runFile: unknown, summary: RunSummary, now: number = Date.now()): StepInfo[] {
  const file = isObject(runFile) ? runFile : {};
  const outputs = isObject(file.outputs) ? file.outputs : {};
  const has = (id: string) => Object.prototype.hasOwnProperty.call(outputs, id);
  return stepStatesOf(summary).map((step): StepInfo => {
    const state = stateOf(step);
    const attempts = (Array.isArray(step.attempts) ? step.attempts : [])
      .filter(isObject)
      .map((a, i) => `attempt ${i + 1} failed${a.at ? ` at ${String(a.at)}` : ''}: ${String(a.error ?? '')}`);
    const info = {
      id: step.id,
      kind: typeof step.type === 'string' ? step.type : '',
      title: typeof step.title === 'string' ? step.title : undefined,
      state,
      label: typeof step.label === 'string' ? step.label : state,
      times: timesOf(step, now),
      duration: durationOf(step.started_at, step.ended_at, step.waited_s),
      attempts,
    };
    const output = has(step.id) ? { preview: previewOf(outputs[step.id]), detail: detailOf(outputs[step.id]) } : undefined;
    if ((state === 'done' || state === 'reused') && output) {
      const from = state === 'reused' ? `reused from ${summary.base_run ?? 'the base run'}: ` : '';
      return { ...info, preview: `${from}${output.preview}`, detail: output.detail };
    }
    const text = factText(step, summary, now);
    const detail = state === 'waiting' ? detailOf(summary.pending?.question ?? summary.pending?.prompt ?? '') : output?.detail ?? text;
    return { ...info, preview: text, detail };
  });
}

/** Codicon id per step state (ThemeIcon ids); the state words are the server's. */
export function stepIcon(state: StepState): string {
  switch (state) {
    case 'done':
      return 'pass';
    case 'answered':
      return 'pass-filled';
    case 'reused':
      return 'history';
    case 'rejected':
      return 'circle-slash';
    case 'skipped':
      return 'debug-step-over';
    case 'waiting':
      return 'debug-pause';
    case 'failed':
      return 'error';
    case 'not delivered':
      return 'warning';
    case 'running':
      return 'sync~spin';
    default:
      return 'circle-outline';
  }
}

/** Theme color id per step state, or undefined for the default foreground. */
export function stepColor(state: StepState): string | undefined {
  switch (state) {
    case 'done':
    case 'answered':
      return 'testing.iconPassed';
    case 'failed':
      return 'testing.iconFailed';
    case 'waiting':
    case 'not delivered':
      return 'charts.yellow';
    default:
      return undefined;
  }
}

/** A CSS class fragment for a state word (`not delivered` → `not-delivered`). */
export function stateClass(state: string): string {
  return state.replace(/\s+/g, '-');
}

/** The run's progress as the server says it (`finished/steps`), '' when it has none. */
export function progressOf(run: RunSummary): string {
  return typeof run.progress === 'string' && run.progress !== '-' ? run.progress : '';
}

/** How many steps of the run were not delivered (the server's states). */
export function undeliveredOf(run: RunSummary): string[] {
  return stepStatesOf(run).filter((s) => stateOf(s) === 'not delivered').map((s) => s.id);
}

/** What the Runs view shows: only runs of `design` and with `status`, when given. */
export interface RunsFilter {
  design?: string;
  status?: string;
}

export function filterRuns(runs: readonly RunSummary[], filter: RunsFilter): RunSummary[] {
  return runs.filter((run) => (!filter.design || run.name === filter.design) && (!filter.status || run.status === filter.status));
}

/** The filter in words, for the view's description; '' for none. */
export function filterText(filter: RunsFilter): string {
  return [filter.design ? `design ${filter.design}` : '', filter.status ? `status ${statusLabel(filter.status)}` : '']
    .filter((p) => p !== '')
    .join(', ');
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

/** What `hwf.showStep` answers (docs/commands.md): one step of a run in full. */
export interface StepDetail {
  run_id?: string;
  name?: string;
  run_status?: string;
  step?: StepSummary;
  context?: string | null;
  has_output?: boolean;
  output?: unknown;
  duration?: string | null;
  deliveries?: unknown[];
}

/**
 * Text from a run (titles, errors, an agent's stderr, targets, the run's name) as
 * Markdown that shows it and nothing else: every character Markdown or HTML acts on is
 * backslash-escaped (CommonMark lets any ASCII punctuation be), so no link, image, tag,
 * heading, list, emphasis, math or autolink (`:` and `.` split a URL) can come from it;
 * line breaks stay line breaks.
 */
export function markdownText(value: unknown): string {
  return String(value ?? '')
    .replace(/[\\`*_{}[\]()#+\-.!|<>~&=$:]/g, (c) => `\\${c}`)
    .replace(/\r\n?|[\n\u0085\u2028\u2029]/g, '\\\n');
}

/** The longest run of `char` in `text`. */
function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** `text` as an inline code span: a backtick run longer than any inside it, on one line. */
export function markdownCode(value: unknown): string {
  const text = String(value ?? '').replace(/[\r\n\u0085\u2028\u2029]+/g, ' ');
  const ticks = '`'.repeat(longestRun(text, '`') + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || text.startsWith(' ') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

/** `text` in a fenced block whose backtick fence is longer than any backtick run in it
 * (a tilde run cannot close a backtick fence), so no content escapes the block. */
export function fenced(text: string, language: string): string {
  const fence = '`'.repeat(Math.max(3, longestRun(text, '`') + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

function prettyJson(value: unknown, parseString = false): [string, string] {
  if (parseString && typeof value === 'string') {
    try {
      return [JSON.stringify(JSON.parse(value), null, 2), 'json'];
    } catch {
      return [value, 'text'];
    }
  }
  return typeof value === 'string' ? [value, 'text'] : [JSON.stringify(value, null, 2) ?? String(value), 'json'];
}

/**
 * The step detail view (Markdown) of an `hwf.showStep` answer: the step's state in the
 * server's words, its times and duration, its failed attempts, the context it was given,
 * its full output and its delivery receipts. Renders the answer; derives nothing.
 */
export function stepDetailMarkdown(detail: StepDetail): string {
  const step: StepSummary = isObject(detail.step) ? (detail.step as StepSummary) : { id: '?' };
  const text = markdownText;
  const lines = [
    `# Step ${markdownCode(step.id)} (${text(step.type ?? '?')})${step.title ? ` — ${text(step.title)}` : ''}`,
    '',
    `Run ${markdownCode(detail.run_id ?? '?')} of **${text(detail.name ?? '?')}** (${text(statusLabel(String(detail.run_status ?? '?')))})`,
    '',
    `**${text(step.label ?? stateOf(step))}**`,
  ];
  const why = [step.why, step.detail, typeof step.error === 'string' ? step.error : ''].filter((p) => typeof p === 'string' && p);
  if (why.length) {
    lines.push('', why.map(text).join(' — '));
  }
  if (step.waiting_for) {
    lines.push('', `Waiting for ${step.waiting_for === 'approval' ? 'approval' : 'an agent'} since ${step.since ? `${text(exactTime(step.since))}, ${text(ageOf(step.since))}` : '?'}${step.escalated ? ' (escalated)' : ''}`);
  }
  const at = (stamp: string | null | undefined) => (stamp ? text(exactTime(stamp)) : '—');
  lines.push('', '## Times', '', `- started: ${at(step.started_at)}`, `- ended: ${at(step.ended_at)}`, `- ran: ${detail.duration ?? '—'}`);
  if (waitedOf(step)) {
    lines.push(`- waited: ${waitedOf(step)}`);
  }
  const attempts = Array.isArray(step.attempts) ? step.attempts.filter(isObject) : [];
  lines.push('', `## Failed attempts (${attempts.length})`);
  attempts.forEach((a, i) => lines.push('', `${i + 1}. ${a.at ? `at ${text(a.at)}: ` : ''}${text(a.error ?? '')}`));
  lines.push('', '## Context (what it was given)', '');
  lines.push(typeof detail.context === 'string' ? fenced(...prettyJson(detail.context, true)) : '—');
  lines.push('', '## Output', '');
  lines.push(detail.has_output ? fenced(...prettyJson(detail.output)) : '—');
  const receipts = Array.isArray(detail.deliveries) ? detail.deliveries.filter(isObject) : [];
  lines.push('', `## Deliveries (${receipts.length})`);
  for (const r of receipts) {
    const verdict = r.ok === true ? 'delivered' : `NOT delivered: ${text(r.error ?? '')}`;
    lines.push('', `- ${text(r.at ?? '')} ${text(r.deliver ?? '')} ${r.target ? text(r.target) : ''} (key ${markdownCode(r.key ?? '')}): ${verdict}`);
  }
  return `${lines.join('\n')}\n`;
}
