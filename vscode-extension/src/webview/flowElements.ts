/**
 * The graph drawn: `hwf.graph`'s nodes and edges and a run's step states → React Flow
 * nodes and edges, laid out by dagre (layout.ts) and routed around the other nodes
 * (detour.ts). No DOM, so node's test runner checks it.
 */
import type { Edge, Node } from '@xyflow/react';
import { detour, type Rect } from './detour';
import { GraphEdge, GraphNode, GraphView, inPlanOrder, NodeRun } from '../model/graphModel';
import { Box, DAGRE_LIMIT, fullLayout, Layout, LayoutEdge, liveRoutes, Route, stableLayout, XY } from './layout';

export interface HwfNodeData extends Record<string, unknown> {
  node: GraphNode;
  run?: NodeRun;
  /** The node under the text cursor. */
  current: boolean;
  /** Hosts without edits or runs hide their buttons. */
  runsEnabled: boolean;
  /** The text is not JSON (the last graph read is drawn): no run can start from it. */
  stale?: boolean;
  /** The debugger: a session is stopped before this node; it has a breakpoint; breakpoints can be toggled. */
  stopped?: boolean;
  breakpoint?: boolean;
  debuggable?: boolean;
}

export const NODE_WIDTH = 240;
export const NODE_HEIGHT = 84;

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
      ...(graph.stale ? { stale: true } : {}),
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
      // what is wrong, in words (a bare "!" said nothing); the whole message is the edge's aria label
      label: defects.length > 0 ? `! ${clipped(defects[0].message, 48)}${defects.length > 1 ? ` (+${defects.length - 1})` : ''}` : undefined,
      ariaLabel: `after: ${e.from} → ${e.to}${defects.length ? ` (${defects.map((d) => d.message).join('; ')})` : ''}`,
      markerEnd: { type: 'arrowclosed' as never, width: 18, height: 18 },
      data: { defects, route: route?.points, ...(around ? { detour: around } : {}), ...offsets.get(id) },
    };
  });
  return { nodes, edges: flowEdges, positions, routes: routed, keys: ids, byKey };
}

/** A node's handles where HwfNode draws them: target at the top centre, source at the bottom. */
export function handlesOf(node: GraphNode, height: number): NonNullable<Node['handles']> {
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

/** `text` cut to `max` characters with an ellipsis. */
function clipped(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
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

