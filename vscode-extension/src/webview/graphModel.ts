/**
 * The canvas's pure model: the server's `hwf.graph` answer (docs/commands.md, "Canvas")
 * and a run's step states → React Flow nodes and edges, laid out by dagre. No DOM and
 * no VS Code API, so node's test runner checks it and both hosts (the VS Code webview,
 * the Hermes dashboard tab) share it.
 */
import dagre from '@dagrejs/dagre';
import type { Edge, Node } from '@xyflow/react';
import type { StepInfo, StepState } from '../common/runModel';

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
}

export interface GraphNode {
  id: string;
  kind: string;
  title?: string | null;
  plan_index?: number | null;
  /** `cut`: the value was too long to send whole (graph_view.SHOWN_CHARS); not editable here. */
  main?: { field: string; value: unknown; cut?: boolean } | null;
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
}

export interface HwfNodeData extends Record<string, unknown> {
  node: GraphNode;
  run?: NodeRun;
  /** The node under the text cursor. */
  current: boolean;
  /** Hosts without edits or runs hide their buttons. */
  runsEnabled: boolean;
}

export const NODE_WIDTH = 240;
export const NODE_HEIGHT = 84;
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

/** The React Flow id of each node: its id, `id#2`… for a repeated id (a defect, still drawn). */
function flowIds(nodes: readonly GraphNode[]): string[] {
  const seen = new Map<string, number>();
  return nodes.map((node) => {
    const count = (seen.get(node.id) ?? 0) + 1;
    seen.set(node.id, count);
    return count === 1 ? node.id : `${node.id}#${count}`;
  });
}

/** Edges whose two ends are drawn (an `after` naming no node is a defect on the node). */
function drawnEdges(graph: GraphView, ids: ReadonlySet<string>): GraphEdge[] {
  return graph.edges.filter((e) => ids.has(e.from) && ids.has(e.to));
}

export type Layout = Map<string, { x: number; y: number }>;

/** Top-left corners from dagre's layered layout, top to bottom in `after` order. */
export function layout(nodeIds: readonly string[], edges: readonly { from: string; to: string }[]): Layout {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 40, ranksep: 60, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const id of nodeIds) {
    g.setNode(id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  }
  for (const e of edges) {
    g.setEdge(e.from, e.to);
  }
  dagre.layout(g);
  const positions: Layout = new Map();
  for (const id of nodeIds) {
    const { x, y } = g.node(id);
    positions.set(id, { x: x - NODE_WIDTH / 2, y: y - NODE_HEIGHT / 2 });
  }
  return positions;
}

/** What the layout depends on: ids and edges (a prompt keystroke keeps it). */
export function layoutKey(graph: GraphView): string {
  return JSON.stringify([graph.nodes.map((n) => n.id), graph.edges.map((e) => [e.from, e.to])]);
}

export interface FlowOptions {
  runs?: ReadonlyMap<string, NodeRun>;
  current?: string | null;
  selected?: string | null;
  selectedEdge?: string | null;
  runsEnabled?: boolean;
  /** A layout computed before for the same `layoutKey` (kept across text-only edits). */
  positions?: Layout;
}

export function edgeId(from: string, to: string): string {
  return `${from}->${to}`;
}

/** The graph as React Flow elements, in plan order (so Tab walks the plan). */
export function toFlow(graph: GraphView, options: FlowOptions = {}): { nodes: Node<HwfNodeData>[]; edges: Edge[]; positions: Layout } {
  const ordered = inPlanOrder(graph.nodes);
  const ids = flowIds(ordered);
  const firstIds = new Set(ids.filter((id, i) => id === ordered[i].id));
  const edges = drawnEdges(graph, firstIds);
  const positions = options.positions ?? layout(ids, edges);
  const nodes = ordered.map((node, i): Node<HwfNodeData> => ({
    id: ids[i],
    type: 'hwf',
    position: positions.get(ids[i]) ?? { x: 0, y: 0 },
    width: NODE_WIDTH,
    initialHeight: NODE_HEIGHT,
    selected: options.selected === ids[i],
    connectable: node.kind !== 'note',
    ariaLabel: `${node.kind} ${node.id}${node.title ? `: ${node.title}` : ''}`,
    data: {
      node,
      run: options.runs?.get(node.id),
      current: options.current === node.id,
      runsEnabled: options.runsEnabled ?? true,
    },
  }));
  const flowEdges = edges.map((e): Edge => {
    const id = edgeId(e.from, e.to);
    const defects = e.defects ?? [];
    return {
      id,
      source: e.from,
      target: e.to,
      selected: options.selectedEdge === id,
      className: defects.length > 0 ? 'hwf-edge-defect' : undefined,
      label: defects.length > 0 ? '!' : undefined,
      ariaLabel: `after: ${e.from} → ${e.to}${defects.length ? ` (${defects.map((d) => d.message).join('; ')})` : ''}`,
      markerEnd: { type: 'arrowclosed' as never },
      data: { defects },
    };
  });
  return { nodes, edges: flowEdges, positions };
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

/** What a drawn element shows: ranges are not drawn (a keystroke moves them), the rest is. */
function drawnKey(value: unknown): string {
  return JSON.stringify(value, (key, v) => (key === 'range' || key === 'id_range' ? undefined : v));
}

/**
 * Elements equal in what they show to the last drawn ones, as the very same objects: React
 * Flow then re-renders only the nodes and edges an edit changed (a 50-node design redraws
 * one node per prompt keystroke). `kept` is updated for the next call.
 */
export function reuseUnchanged<T extends { id: string }>(kept: Map<string, { key: string; value: T }>, next: readonly T[]): T[] {
  const seen = new Set<string>();
  const result = next.map((item) => {
    seen.add(item.id);
    const key = drawnKey(item);
    const old = kept.get(item.id);
    if (old && old.key === key) {
      return old.value;
    }
    kept.set(item.id, { key, value: item });
    return item;
  });
  for (const id of [...kept.keys()]) {
    if (!seen.has(id)) kept.delete(id);
  }
  return result;
}

/** One line per defect, for a node's or edge's tooltip. */
export function defectText(defects: readonly GraphDefect[] | undefined): string {
  return (defects ?? []).map((d) => d.message).join('\n');
}
