/**
 * Where the canvas's nodes go. A full layout (dagre's layered layout and its edge
 * routes; a plain iterative layered layout for graphs too big for dagre) on open and on
 * "Re-layout"; otherwise the positions the nodes had stay, and only new nodes are placed,
 * near their parent. Keys are opaque strings: every lookup goes through a Map, and dagre
 * only ever sees its own `n<index>` names, so an id like `__proto__` or `constructor`
 * is just a key. No recursion: a 3,000-node chain is as safe as a 3-node one.
 */
import dagre from '@dagrejs/dagre';

export interface XY {
  x: number;
  y: number;
}

/** Top-left corner of each node, by key. */
export type Layout = Map<string, XY>;

export interface LayoutEdge {
  id: string;
  source: string;
  target: string;
}

export interface Route {
  points: XY[];
  source: string;
  target: string;
  /** The corners of its two ends when it was routed: a route is drawn only while both stay. */
  from: XY;
  to: XY;
}

export interface Placed {
  positions: Layout;
  routes: Map<string, Route>;
}

export const NODESEP = 40;
export const RANKSEP = 60;
/** dagre is recursive (its stack overflows near 2,500 nodes) and slow past a few hundred. */
export const DAGRE_LIMIT = 150;

export interface Box {
  width: number;
  height: number;
}

/** A fresh layout of every node; dagre's when the graph is small enough and it succeeds. */
export function fullLayout(keys: readonly string[], edges: readonly LayoutEdge[], size: (key: string) => Box): Placed {
  if (keys.length <= DAGRE_LIMIT) {
    try {
      return dagreLayout(keys, edges, size);
    } catch {
      // a graph dagre cannot take (it is recursive): the plain layout below
    }
  }
  return { positions: layeredLayout(keys, edges, size), routes: new Map() };
}

function dagreLayout(keys: readonly string[], edges: readonly LayoutEdge[], size: (key: string) => Box): Placed {
  const name = new Map<string, string>();
  keys.forEach((key, i) => name.set(key, `n${i}`));
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: NODESEP, ranksep: RANKSEP, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  keys.forEach((key) => g.setNode(name.get(key)!, { ...size(key) }));
  edges.forEach((e, i) => {
    const v = name.get(e.source);
    const w = name.get(e.target);
    if (v !== undefined && w !== undefined && v !== w) g.setEdge(v, w, {}, `e${i}`);
  });
  dagre.layout(g);
  const positions: Layout = new Map();
  keys.forEach((key) => {
    const { x, y, width, height } = g.node(name.get(key)!);
    positions.set(key, { x: x - width / 2, y: y - height / 2 });
  });
  const routes = new Map<string, Route>();
  edges.forEach((e, i) => {
    const v = name.get(e.source);
    const w = name.get(e.target);
    const label = v !== undefined && w !== undefined ? g.edge({ v, w, name: `e${i}` }) : undefined;
    if (label?.points?.length) {
      routes.set(e.id, { points: label.points.map((p: XY) => ({ x: p.x, y: p.y })), source: e.source, target: e.target, from: positions.get(e.source)!, to: positions.get(e.target)! });
    }
  });
  return { positions, routes };
}

/**
 * A layered layout without recursion: ranks by longest path (Kahn's order; a node in a
 * cycle is taken when nothing else is ready), each rank ordered by its parents' places,
 * ranks centred on one axis.
 */
export function layeredLayout(keys: readonly string[], edges: readonly LayoutEdge[], size: (key: string) => Box): Layout {
  const index = new Map<string, number>();
  keys.forEach((k, i) => index.set(k, i));
  const n = keys.length;
  const children: number[][] = Array.from({ length: n }, () => []);
  const parents: number[][] = Array.from({ length: n }, () => []);
  const indegree = new Array<number>(n).fill(0);
  for (const e of edges) {
    const a = index.get(e.source);
    const b = index.get(e.target);
    if (a === undefined || b === undefined || a === b) continue;
    children[a].push(b);
    parents[b].push(a);
    indegree[b] += 1;
  }
  const rank = new Array<number>(n).fill(0);
  const done = new Array<boolean>(n).fill(false);
  const queue: number[] = [];
  const queued = new Array<boolean>(n).fill(false);
  const enqueue = (v: number) => {
    queued[v] = true;
    queue.push(v);
  };
  for (let i = 0; i < n; i += 1) if (indegree[i] === 0) enqueue(i);
  let head = 0;
  let next = 0; // the first node maybe not done yet: where a cycle is broken
  let taken = 0;
  while (taken < n) {
    if (head === queue.length) {
      while (queued[next]) next += 1;
      enqueue(next);
    }
    const v = queue[head++];
    done[v] = true;
    taken += 1;
    for (const p of parents[v]) if (done[p]) rank[v] = Math.max(rank[v], rank[p] + 1);
    for (const c of children[v]) {
      indegree[c] -= 1;
      if (indegree[c] === 0 && !queued[c]) enqueue(c);
    }
  }
  const rows: number[][] = [];
  const order = new Array<number>(n).fill(0);
  for (const v of queue) {
    (rows[rank[v]] ??= []).push(v); // in the order taken
  }
  const positions: Layout = new Map();
  let y = 20;
  for (const row of rows) {
    if (!row) continue;
    const bary = (v: number) => (parents[v].length ? parents[v].reduce((s, p) => s + order[p], 0) / parents[v].length : order[v]);
    row.sort((a, b) => bary(a) - bary(b));
    row.forEach((v, i) => (order[v] = i));
    const widths = row.map((v) => size(keys[v]).width);
    const total = widths.reduce((s, w) => s + w, 0) + NODESEP * (row.length - 1);
    let x = -total / 2;
    let tallest = 0;
    row.forEach((v, i) => {
      positions.set(keys[v], { x, y });
      x += widths[i] + NODESEP;
      tallest = Math.max(tallest, size(keys[v]).height);
    });
    y += tallest + RANKSEP;
  }
  return positions;
}

/**
 * The previous positions kept; the nodes that are new placed near their parent (below
 * it, moved right until they overlap nothing), or above their child, or below
 * everything. A node renamed (a new key where a key vanished at the same place in the
 * list) keeps its spot. Undefined when nothing is known yet: then a full layout.
 */
export function stableLayout(
  keys: readonly string[],
  edges: readonly LayoutEdge[],
  size: (key: string) => Box,
  previous: Layout,
  previousKeys: readonly string[],
): Layout | undefined {
  const present = new Set(keys);
  if (!keys.some((k) => previous.has(k))) {
    return undefined;
  }
  const positions: Layout = new Map();
  for (const k of keys) {
    const p = previous.get(k);
    if (p) positions.set(k, p);
  }
  // renamed: a new key where a vanished key was, at the same index
  keys.forEach((k, i) => {
    const old = previousKeys[i];
    if (!positions.has(k) && old !== undefined && !present.has(old) && previous.has(old)) {
      positions.set(k, previous.get(old)!);
    }
  });
  const fresh = keys.filter((k) => !positions.has(k));
  if (fresh.length === 0) {
    return positions;
  }
  const parentOf = new Map<string, string>();
  const childOf = new Map<string, string>();
  for (const e of edges) {
    if (!parentOf.has(e.target)) parentOf.set(e.target, e.source);
    if (!childOf.has(e.source)) childOf.set(e.source, e.target);
  }
  let bottom = 20;
  let left = Infinity;
  for (const [k, p] of positions) {
    bottom = Math.max(bottom, p.y + size(k).height + RANKSEP);
    left = Math.min(left, p.x);
  }
  if (!Number.isFinite(left)) left = 0;
  // parents first: a chain of new nodes hangs under the node it starts from
  const pending = [...fresh];
  for (let guard = 0; pending.length && guard <= fresh.length; guard += 1) {
    for (let i = 0; i < pending.length; ) {
      const k = pending[i];
      const parent = parentOf.get(k);
      const child = childOf.get(k);
      const box = size(k);
      let at: XY | undefined;
      if (parent !== undefined && positions.has(parent)) {
        const p = positions.get(parent)!;
        at = { x: p.x, y: p.y + size(parent).height + RANKSEP };
      } else if (parent !== undefined && pending.includes(parent) && guard < fresh.length) {
        i += 1; // its parent is placed first
        continue;
      } else if (child !== undefined && positions.has(child)) {
        const c = positions.get(child)!;
        at = { x: c.x, y: c.y - box.height - RANKSEP };
      } else {
        at = { x: left, y: bottom };
      }
      positions.set(k, freeSpot(at, box, positions, size));
      pending.splice(i, 1);
    }
  }
  return positions;
}

/** `at`, or the first spot to its right where the box overlaps no placed node. */
function freeSpot(at: XY, box: Box, placed: Layout, size: (key: string) => Box): XY {
  let x = at.x;
  for (let tries = 0; tries < 1000; tries += 1) {
    let blocker: number | undefined;
    for (const [k, p] of placed) {
      const s = size(k);
      if (x < p.x + s.width + NODESEP / 2 && p.x < x + box.width + NODESEP / 2 && at.y < p.y + s.height + 10 && p.y < at.y + box.height + 10) {
        blocker = Math.max(blocker ?? -Infinity, p.x + s.width + NODESEP);
      }
    }
    if (blocker === undefined) {
      return { x, y: at.y };
    }
    x = blocker;
  }
  return { x, y: at.y };
}

/** The routes still true: both ends where they were when routed. */
export function liveRoutes(routes: ReadonlyMap<string, Route>, positions: Layout): Map<string, Route> {
  const same = (a: XY | undefined, b: XY) => a !== undefined && a.x === b.x && a.y === b.y;
  const live = new Map<string, Route>();
  for (const [id, r] of routes) {
    if (same(positions.get(r.source), r.from) && same(positions.get(r.target), r.to)) live.set(id, r);
  }
  return live;
}

/** The bounding box of placed nodes. */
export function bounds(positions: Layout, size: (key: string) => Box): { x: number; y: number; width: number; height: number } {
  let x1 = Infinity;
  let y1 = Infinity;
  let x2 = -Infinity;
  let y2 = -Infinity;
  for (const [k, p] of positions) {
    const s = size(k);
    x1 = Math.min(x1, p.x);
    y1 = Math.min(y1, p.y);
    x2 = Math.max(x2, p.x + s.width);
    y2 = Math.max(y2, p.y + s.height);
  }
  return Number.isFinite(x1) ? { x: x1, y: y1, width: x2 - x1, height: y2 - y1 } : { x: 0, y: 0, width: 0, height: 0 };
}
