/**
 * An edge's path once the layout's route no longer fits it (one of its nodes was dragged,
 * or placed after the layout): straight segments down from the source's handle, across,
 * and straight down into the target's handle, so its arrowhead shows whole. Of a few
 * such paths (across at each free height between the nodes, or down a free column beside
 * them) it takes the one that crosses the fewest other nodes' boxes, then the shortest.
 * Pure and small (unit tested): a few dozen candidates, each checked against the boxes.
 */
import type { XY } from './layout';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The first and last segment's length: room for the arrowhead (18 px) below and above the nodes. */
export const STUB = 24;
/** How far a path keeps from a box it goes around. */
export const CLEAR = 12;

/** The path from `from` (the source's bottom handle) to `to` (the target's top handle) around `others`. */
export function detour(from: XY, to: XY, source: Rect, target: Rect, others: readonly Rect[]): XY[] {
  const top = from.y + STUB;
  const bottom = to.y - STUB;
  const candidates: XY[][] = [];
  if (bottom >= top) {
    // down, across at one height, down
    const heights = new Set([top, bottom, (top + bottom) / 2]);
    for (const r of others) {
      for (const y of [r.y - CLEAR, r.y + r.height + CLEAR]) {
        if (y >= top && y <= bottom) heights.add(y);
      }
    }
    for (const y of heights) candidates.push([from, { x: from.x, y }, { x: to.x, y }, to]);
  }
  // down, across to a column, along it, across, down: also for a target above its source
  const columns = new Set([from.x, to.x]);
  for (const r of [source, target, ...others]) {
    columns.add(r.x - CLEAR);
    columns.add(r.x + r.width + CLEAR);
  }
  for (const x of columns) {
    candidates.push([from, { x: from.x, y: top }, { x, y: top }, { x, y: bottom }, { x: to.x, y: bottom }, to]);
  }
  let best: XY[] = [from, to];
  let bestCost = Infinity;
  for (const points of candidates) {
    const path = simplified(points);
    const cost = crossings(path, source, target, others) * 1e6 + length(path) + (path.length - 2) * 20;
    if (cost < bestCost) {
      best = path;
      bestCost = cost;
    }
  }
  return best;
}

/** How many (segment, box) pairs meet: every box for the middle segments; not the source for the first, nor the target for the last. */
export function crossings(path: readonly XY[], source: Rect, target: Rect, others: readonly Rect[]): number {
  let count = 0;
  const last = path.length - 2;
  for (let i = 0; i <= last; i += 1) {
    const a = path[i];
    const b = path[i + 1];
    for (const r of others) if (meets(a, b, r, CLEAR / 2)) count += 1;
    if (i > 0 && meets(a, b, source, CLEAR / 2)) count += 1;
    if (i < last && meets(a, b, target, CLEAR / 2)) count += 1;
  }
  return count;
}

/** Whether the axis-parallel segment a–b enters the box grown by `margin` on each side. */
function meets(a: XY, b: XY, r: Rect, margin: number): boolean {
  return Math.min(a.x, b.x) < r.x + r.width + margin && Math.max(a.x, b.x) > r.x - margin &&
    Math.min(a.y, b.y) < r.y + r.height + margin && Math.max(a.y, b.y) > r.y - margin;
}

function length(path: readonly XY[]): number {
  let sum = 0;
  for (let i = 1; i < path.length; i += 1) sum += Math.abs(path[i].x - path[i - 1].x) + Math.abs(path[i].y - path[i - 1].y);
  return sum;
}

/** The points without repeats, and without a middle point where the path goes straight on (a turn back stays: it is checked as it is drawn). */
export function simplified(points: readonly XY[]): XY[] {
  const out: XY[] = [];
  for (const p of points) {
    const prev = out[out.length - 1];
    if (prev && prev.x === p.x && prev.y === p.y) continue;
    const before = out[out.length - 2];
    const straightOn = before && prev && (
      (before.x === prev.x && prev.x === p.x && (prev.y - before.y) * (p.y - prev.y) > 0) ||
      (before.y === prev.y && prev.y === p.y && (prev.x - before.x) * (p.x - prev.x) > 0));
    if (straightOn) {
      out[out.length - 1] = p;
      continue;
    }
    out.push(p);
  }
  return out;
}
