/**
 * Small geometry the canvas draws with, pure (unit tested): an edge's path through its
 * route or its detour, and where a node's hover card goes.
 */
import type { XY } from './layout';

/** A path through the route's points, corners rounded by quadratic curves. */
export function routePath(points: readonly XY[]): string {
  if (points.length < 2) {
    return '';
  }
  let d = `M ${points[0].x} ${points[0].y}`;
  for (let i = 1; i < points.length - 1; i += 1) {
    const p = points[i];
    const q = points[i + 1];
    d += ` Q ${p.x} ${p.y} ${(p.x + q.x) / 2} ${(p.y + q.y) / 2}`;
  }
  const last = points[points.length - 1];
  return `${d} L ${last.x} ${last.y}`;
}

/**
 * A path through straight segments (a detour, detour.ts) with each corner rounded by at
 * most `radius`, so the line stays within a few pixels of the segments it was checked as.
 */
export function orthogonalPath(points: readonly XY[], radius = 6): string {
  if (points.length < 2) {
    return '';
  }
  let d = `M ${points[0].x} ${points[0].y}`;
  for (let i = 1; i < points.length - 1; i += 1) {
    const [a, p, b] = [points[i - 1], points[i], points[i + 1]];
    const r = Math.min(radius, Math.hypot(p.x - a.x, p.y - a.y) / 2, Math.hypot(b.x - p.x, b.y - p.y) / 2);
    const toward = (q: XY) => {
      const len = Math.hypot(q.x - p.x, q.y - p.y) || 1;
      return { x: p.x + ((q.x - p.x) / len) * r, y: p.y + ((q.y - p.y) / len) * r };
    };
    const enter = toward(a);
    const leave = toward(b);
    d += ` L ${enter.x} ${enter.y} Q ${p.x} ${p.y} ${leave.x} ${leave.y}`;
  }
  const last = points[points.length - 1];
  return `${d} L ${last.x} ${last.y}`;
}

const PREVIEW_WIDTH = 320;
const PREVIEW_HEIGHT = 200;

/**
 * Where the hover card goes: below the node, or above it when the window has no room
 * below; never past the window's right edge (it is drawn outside the graph's pane, so the
 * pane cannot cut it off).
 */
export function previewPlace(node: { left: number; top: number; bottom: number }, view: { width: number; height: number }): { left: number; top?: number; bottom?: number } {
  const left = Math.max(4, Math.min(node.left, view.width - PREVIEW_WIDTH - 8));
  return node.bottom + 4 + PREVIEW_HEIGHT <= view.height ? { left, top: node.bottom + 4 } : { left, bottom: Math.max(4, view.height - node.top + 4) };
}


/** A rectangle in flow or screen units. */
export interface Box { x: number; y: number; width: number; height: number }

/**
 * The first view of a graph (issue 44: at zoom 0.32 nothing was readable): the whole graph
 * when it fits at a `readable` zoom or more (never above 1), else `readable` zoom with the
 * graph's top (its trigger) at the top of the pane, centred across when it is narrow
 * enough, else from its left edge; the user scrolls for the rest. `fits`: everything shows.
 */
export function firstView(graph: Box, pane: { width: number; height: number }, readable: number, padding = 24): { x: number; y: number; zoom: number; fits: boolean } {
  const room = { width: Math.max(1, pane.width - 2 * padding), height: Math.max(1, pane.height - 2 * padding) };
  const fit = Math.min(1, room.width / Math.max(1, graph.width), room.height / Math.max(1, graph.height));
  const zoom = Math.max(fit, Math.min(1, readable));
  const across = (size: number, start: number, space: number) =>
    size * zoom <= space ? padding + (space - size * zoom) / 2 - start * zoom : padding - start * zoom;
  return {
    x: across(graph.width, graph.x, room.width),
    y: across(graph.height, graph.y, room.height),
    zoom,
    fits: zoom === fit,
  };
}

/** The viewport moved (same zoom) just enough to show `box` (flow units) inside `pane`, or null when it shows already. */
export function panToShow(box: Box, view: { x: number; y: number; zoom: number }, pane: { width: number; height: number }, margin = 16): { x: number; y: number } | null {
  const shift = (start: number, size: number, offset: number, space: number) => {
    const from = start * view.zoom + offset;
    const to = from + size * view.zoom;
    if (from >= margin && to <= space - margin) return 0;
    if (size * view.zoom > space - 2 * margin || from < margin) return margin - from;
    return space - margin - to;
  };
  const dx = shift(box.x, box.width, view.x, pane.width);
  const dy = shift(box.y, box.height, view.y, pane.height);
  return dx === 0 && dy === 0 ? null : { x: view.x + dx, y: view.y + dy };
}
