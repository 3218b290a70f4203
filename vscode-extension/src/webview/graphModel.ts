/**
 * The canvas's pure model: the server's `hwf.graph` answer (docs/commands.md, "Canvas")
 * and a run's step states → React Flow nodes and edges, laid out by dagre. No DOM and
 * no VS Code API, so node's test runner checks it and both hosts (the VS Code webview,
 * the Hermes dashboard tab) share it.
 */
import type { Edge, Node } from '@xyflow/react';
import type { StepInfo, StepState } from '../common/runModel';
import { detour, type Rect } from './detour';
import { Box, DAGRE_LIMIT, fullLayout, Layout, LayoutEdge, liveRoutes, Route, stableLayout, XY } from './layout';

export type { Layout } from './layout';

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

export interface HwfNodeData extends Record<string, unknown> {
  node: GraphNode;
  run?: NodeRun;
  /** The node under the text cursor. */
  current: boolean;
  /** Hosts without edits or runs hide their buttons. */
  runsEnabled: boolean;
  /** The debugger: a session is stopped before this node; it has a breakpoint; breakpoints can be toggled. */
  stopped?: boolean;
  breakpoint?: boolean;
  debuggable?: boolean;
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

/**
 * The React Flow key of each node: its id; a repeated id (a defect, still drawn) gets
 * `id#2`, `id#3`… skipping every key that is an id or already given, so a repeat of
 * `a` never takes the place of a real `a#2`.
 */
export function flowIds(nodes: readonly GraphNode[]): string[] {
  const ids = new Set(nodes.map((n) => n.id));
  const given = new Set<string>();
  const count = new Map<string, number>();
  return nodes.map((node) => {
    if (!given.has(node.id)) {
      given.add(node.id);
      return node.id;
    }
    let n = count.get(node.id) ?? 1;
    let key: string;
    do {
      n += 1;
      key = `${node.id}#${n}`;
    } while (ids.has(key) || given.has(key));
    count.set(node.id, n);
    given.add(key);
    return key;
  });
}

/** Edges whose two ends are drawn (an `after` naming no node is a defect on the node). */
function drawnEdges(graph: GraphView, ids: ReadonlySet<string>): GraphEdge[] {
  return graph.edges.filter((e) => ids.has(e.from) && ids.has(e.to));
}

/** A node's box: the width is fixed; the height grows with what the node shows. */
export function nodeSize(node: GraphNode): Box {
  const lines = (text: string, perLine: number, max: number) =>
    Math.min(max, text.split('\n').reduce((sum, l) => sum + Math.max(1, Math.ceil(l.length / perLine)), 0));
  const title = node.title || node.id;
  const main = node.main?.value;
  const mainText = typeof main === 'string' ? main : main === undefined || main === null ? '' : JSON.stringify(main);
  const titleLines = lines(title, 22, 2);
  const mainLines = mainText ? lines(mainText, 34, node.kind === 'note' ? 12 : 2) : 0;
  return { width: NODE_WIDTH, height: Math.max(NODE_HEIGHT, 40 + titleLines * 18 + mainLines * 16 + 8) };
}

/** Top-left corners from a full layout of the keys (unit tests, the dashboard's first view). */
export function layout(nodeIds: readonly string[], edges: readonly { from: string; to: string }[]): Layout {
  const size = () => ({ width: NODE_WIDTH, height: NODE_HEIGHT });
  return fullLayout(nodeIds, edges.map((e, i) => ({ id: String(i), source: e.from, target: e.to })), size).positions;
}

export interface FlowOptions {
  runs?: ReadonlyMap<string, NodeRun>;
  current?: string | null;
  selected?: string | null;
  selectedEdge?: string | null;
  runsEnabled?: boolean;
  /** Where the nodes were (kept: only new nodes are placed); none: a full layout. */
  positions?: Layout;
  /** The keys `positions` was for, in order (a renamed node keeps its spot). */
  previousKeys?: readonly string[];
  /** Edge routes of the last full layout (drawn while both ends stay put). */
  routes?: ReadonlyMap<string, Route>;
  /** Nodes' drawn sizes where known (their heights follow their text): the detours go around those boxes. */
  measured?: (key: string) => Box | undefined;
  /**
   * Give each node its handles up front: React Flow then renders only the nodes in view
   * from the start instead of every node once to measure them (seconds at 3,000).
   */
  handles?: boolean;
  /** The debugger's state (a host with a debugger): the node stopped before, the steps with a breakpoint. */
  debug?: { stopped: string | null; breakpoints: readonly string[] };
}

/** An edge's key: JSON of its ends, so no two pairs of ids ever share one. */
export function edgeId(from: string, to: string): string {
  return JSON.stringify([from, to]);
}

/** The graph as React Flow elements, in plan order (so Tab walks the plan). */
export function toFlow(
  graph: GraphView,
  options: FlowOptions = {},
): { nodes: Node<HwfNodeData>[]; edges: Edge[]; positions: Layout; routes: ReadonlyMap<string, Route>; keys: string[]; byKey: Map<string, GraphNode> } {
  const ordered = inPlanOrder(graph.nodes);
  const ids = flowIds(ordered);
  const byKey = new Map<string, GraphNode>();
  ids.forEach((k, i) => byKey.set(k, ordered[i]));
  const firstIds = new Set(ids.filter((id, i) => id === ordered[i].id));
  const edges = drawnEdges(graph, firstIds);
  const layoutEdges: LayoutEdge[] = edges.map((e) => ({ id: edgeId(e.from, e.to), source: e.from, target: e.to }));
  const size = (key: string) => (byKey.has(key) ? nodeSize(byKey.get(key)!) : { width: NODE_WIDTH, height: NODE_HEIGHT });
  let positions = options.positions && stableLayout(ids, layoutEdges, size, options.positions, options.previousKeys ?? []);
  let routed: ReadonlyMap<string, Route> | undefined = options.routes;
  if (!positions || (routed === undefined && ids.length <= DAGRE_LIMIT)) {
    // kept positions without routes (restored from the host): the full layout's routes
    // still fit every node that was not moved since
    const placed = fullLayout(ids, layoutEdges, size);
    positions ??= placed.positions;
    routed = placed.routes;
  }
  routed ??= new Map<string, Route>();
  const routes = liveRoutes(routed, positions);
  const offsets = endOffsets(edges, positions);
  const boxes = new Map<string, Rect>();
  const boxOf = (key: string): Rect => {
    let box = boxes.get(key);
    if (!box) {
      const at = positions!.get(key) ?? { x: 0, y: 0 };
      box = { ...at, ...(options.measured?.(key) ?? size(key)) };
      boxes.set(key, box);
    }
    return box;
  };
  // An edge whose route no longer fits goes around the other nodes (a graph dagre lays out: past that, a curve)
  const detourOf = (from: string, to: string, offset: { sourceOffset: number; targetOffset: number } | undefined): XY[] | undefined => {
    if (ids.length > DAGRE_LIMIT) return undefined;
    const source = boxOf(from);
    const target = boxOf(to);
    const others = ids.filter((k) => k !== from && k !== to).map(boxOf);
    const start = { x: source.x + source.width / 2 + (offset?.sourceOffset ?? 0), y: source.y + source.height };
    const end = { x: target.x + target.width / 2 + (offset?.targetOffset ?? 0), y: target.y };
    return detour(start, end, source, target, others);
  };
  const nodes = ordered.map((node, i): Node<HwfNodeData> => ({
    id: ids[i],
    type: 'hwf',
    position: positions!.get(ids[i]) ?? { x: 0, y: 0 },
    width: NODE_WIDTH,
    initialHeight: size(ids[i]).height,
    ...(options.handles ? { handles: handlesOf(node, size(ids[i]).height) } : {}),
    selected: options.selected === ids[i],
    connectable: node.kind !== 'note',
    ariaLabel: `${node.kind} ${node.id}${node.title ? `: ${node.title}` : ''}`,
    data: {
      node,
      run: options.runs?.get(node.id),
      current: options.current === node.id,
      runsEnabled: options.runsEnabled ?? true,
      ...(options.debug
        ? { debuggable: true, stopped: options.debug.stopped === node.id, breakpoint: options.debug.breakpoints.includes(node.id) }
        : {}),
    },
  }));
  const flowEdges = edges.map((e): Edge => {
    const id = edgeId(e.from, e.to);
    const defects = e.defects ?? [];
    const route = routes.get(id);
    const around = route ? undefined : detourOf(e.from, e.to, offsets.get(id));
    return {
      id,
      type: 'hwf',
      source: e.from,
      target: e.to,
      selected: options.selectedEdge === id,
      className: defects.length > 0 ? 'hwf-edge-defect' : undefined,
      label: defects.length > 0 ? '!' : undefined,
      ariaLabel: `after: ${e.from} → ${e.to}${defects.length ? ` (${defects.map((d) => d.message).join('; ')})` : ''}`,
      markerEnd: { type: 'arrowclosed' as never, width: 18, height: 18 },
      data: { defects, route: route?.points, ...(around ? { detour: around } : {}), ...offsets.get(id) },
    };
  });
  return { nodes, edges: flowEdges, positions, routes: routed, keys: ids, byKey };
}

/** A node's handles where HwfNode draws them: target at the top centre, source at the bottom. */
function handlesOf(node: GraphNode, height: number): NonNullable<Node['handles']> {
  const handles: NonNullable<Node['handles']> = [];
  if (node.kind !== 'note' && node.kind !== 'trigger') {
    handles.push({ type: 'target', position: 'top' as never, x: NODE_WIDTH / 2 - 5, y: -5, width: 10, height: 10 });
  }
  if (node.kind !== 'note') {
    handles.push({ type: 'source', position: 'bottom' as never, x: NODE_WIDTH / 2 - 5, y: height - 5, width: 10, height: 10 });
  }
  return handles;
}

/**
 * Where each end of an edge meets its node when it is drawn without a route: the edges
 * into (out of) one node spread along its side in the order of their other ends, so no
 * two share a point.
 */
export function endOffsets(edges: readonly GraphEdge[], positions: Layout, gap = 18): Map<string, { sourceOffset: number; targetOffset: number }> {
  const result = new Map<string, { sourceOffset: number; targetOffset: number }>();
  const spread = (groups: Map<string, GraphEdge[]>, other: (e: GraphEdge) => string, field: 'sourceOffset' | 'targetOffset') => {
    for (const group of groups.values()) {
      group.sort((a, b) => (positions.get(other(a))?.x ?? 0) - (positions.get(other(b))?.x ?? 0));
      group.forEach((e, i) => {
        const id = edgeId(e.from, e.to);
        const entry = result.get(id) ?? { sourceOffset: 0, targetOffset: 0 };
        entry[field] = Math.max(-100, Math.min(100, (i - (group.length - 1) / 2) * gap));
        result.set(id, entry);
      });
    }
  };
  const into = new Map<string, GraphEdge[]>();
  const outOf = new Map<string, GraphEdge[]>();
  for (const e of edges) {
    into.set(e.to, [...(into.get(e.to) ?? []), e]);
    outOf.set(e.from, [...(outOf.get(e.from) ?? []), e]);
  }
  spread(into, (e) => e.from, 'targetOffset');
  spread(outOf, (e) => e.to, 'sourceOffset');
  return result;
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
