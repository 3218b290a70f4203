/**
 * The canvas's graph: the server's `hwf.graph` answer (docs/commands.md, "Canvas")
 * checked into types, and a run's step states by node. No DOM, no React and no VS Code
 * API: the extension, the canvas and the Hermes dashboard tab share it (drawing it is
 * webview/flowElements.ts).
 */
import type { StepInfo, StepState } from './runModel';

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface GraphDefect {
  message: string;
  severity?: number;
  code?: string | number | null;
  /** Where in the text (0-based lines), when the server knows. */
  range?: { start: { line: number; character: number } } | null;
}

/** One field the node's kind may carry, as `hwf.graph` types it (the inspector's input). */
export interface FieldSpec {
  name: string;
  /** 'string', 'integer', 'string-list', 'id-list' or 'enum'. */
  type: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  required?: boolean;
  default?: unknown;
  /** Absent: the node does not set it. */
  value?: unknown;
  /** The value was too long to send whole (graph_view.SHOWN_CHARS): shown, not editable. */
  cut?: boolean;
}

export interface GraphNode {
  id: string;
  kind: string;
  title?: string | null;
  plan_index?: number | null;
  /** `cut`: the value was too long to send whole (graph_view.SHOWN_CHARS); not editable here. */
  main?: { field: string; value: unknown; cut?: boolean } | null;
  fields?: FieldSpec[];
  range?: Range;
  id_range?: Range;
  defects?: GraphDefect[];
}

export interface GraphEdge {
  from: string;
  to: string;
  range?: Range;
  defects?: GraphDefect[];
}

/** The `hwf.graph` answer. */
export interface GraphView {
  uri: string;
  version: number | null;
  stale: boolean;
  name?: string | null;
  nodes: GraphNode[];
  edges: GraphEdge[];
  defects?: GraphDefect[];
}

/** What a node shows of a run: the server's step state (the engine's run facts). */
export type NodeState = StepState;

export interface NodeRun {
  state: NodeState;
  /** The server's label of the state (`✓ done`, `⚠ not delivered`). */
  label: string;
  /** When it ran (`started …, ended … (took …)`), '' when not recorded. */
  times: string;
  /** One line: the output, why skipped, what it waits for. */
  preview: string;
  /** The whole output (capped), for the hover card. */
  detail: string;
  /** For a parked approval: its options; for a parked agent step: []. */
  options?: string[];
  /** The run that is parked here (answer / respond go to it). */
  runId?: string;
  /** The run these facts are of (the step detail opens in it). */
  ofRun: string;
  /** How long the step took (runModel.durationOf: `1.50 s`), when the run gives its times. */
  duration?: string;
}

export const KINDS = ['trigger', 'agent', 'condition', 'approval', 'output', 'note'] as const;

/** A glyph per kind (in DejaVu Sans and the system fonts, so no icon font to ship). */
export function kindIcon(kind: string): string {
  switch (kind) {
    case 'trigger':
      return '⚑';
    case 'agent':
      return '◉';
    case 'condition':
      return '◇';
    case 'approval':
      return '✓';
    case 'output':
      return '➤';
    case 'note':
      return '✎';
    default:
      return '?';
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The answer checked enough to draw it: undefined when it is not a graph at all. */
export function asGraphView(value: unknown): GraphView | undefined {
  if (!isObject(value) || !Array.isArray(value.nodes) || !Array.isArray(value.edges)) {
    return undefined;
  }
  const nodes = value.nodes
    .filter((n): n is GraphNode => isObject(n) && typeof n.id === 'string')
    .map((n) => (typeof n.kind === 'string' ? n : { ...n, kind: '' })); // a `type` that is no string: drawn as unknown
  const edges = value.edges.filter((e): e is GraphEdge => isObject(e) && typeof e.from === 'string' && typeof e.to === 'string');
  return {
    uri: typeof value.uri === 'string' ? value.uri : '',
    version: typeof value.version === 'number' ? value.version : null,
    stale: value.stale === true,
    name: typeof value.name === 'string' ? value.name : null,
    nodes,
    edges,
    defects: Array.isArray(value.defects) ? (value.defects as GraphDefect[]) : [],
  };
}

/** Plan order first (the runner's), then the nodes that are not steps (notes), in file order. */
export function inPlanOrder(nodes: readonly GraphNode[]): GraphNode[] {
  const rank = (n: GraphNode) => (typeof n.plan_index === 'number' ? n.plan_index : Number.MAX_SAFE_INTEGER);
  return nodes.map((node, i) => ({ node, i })).sort((a, b) => rank(a.node) - rank(b.node) || a.i - b.i).map((x) => x.node);
}

/**
 * Each step's state in a run, keyed by node id: the server's (`step_states`, rendered by
 * runModel.stepsOfRun), as they are; a parked step carries its options.
 */
export function nodeRuns(
  run: { run_id: string; status: string; pending?: { node?: string; options?: string[] } | null } | undefined,
  steps: readonly StepInfo[],
): Map<string, NodeRun> {
  const result = new Map<string, NodeRun>();
  if (!run) {
    return result;
  }
  for (const step of steps) {
    const entry: NodeRun = {
      state: step.state, label: step.label, times: step.times, preview: step.preview, detail: step.detail, ofRun: run.run_id,
    };
    if (step.duration) entry.duration = step.duration;
    if (step.state === 'waiting' && run.pending?.node === step.id) {
      entry.runId = run.run_id;
      entry.options = step.kind === 'approval' ? (run.pending.options ?? ['approve', 'reject']) : [];
    }
    result.set(step.id, entry);
  }
  return result;
}

/** The node whose object range holds a position (the innermost: ranges do not nest here). */
export function nodeAt(graph: GraphView | undefined, line: number, character: number): string | undefined {
  const inside = (r: Range | undefined) =>
    r !== undefined &&
    (line > r.start.line || (line === r.start.line && character >= r.start.character)) &&
    (line < r.end.line || (line === r.end.line && character <= r.end.character));
  return graph?.nodes.find((n) => inside(n.range))?.id;
}

/** One line per defect, for a node's or edge's tooltip. */
export function defectText(defects: readonly GraphDefect[] | undefined): string {
  // a design that is not valid JSON says where ("stale" alone did not)
  return (defects ?? []).map((d) => (d.code === 'json-syntax' && d.range ? `Not valid JSON at line ${d.range.start.line + 1}, column ${d.range.start.character + 1}: ${d.message}` : d.message)).join('\n');
}
