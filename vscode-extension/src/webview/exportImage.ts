/**
 * The graph as a standalone SVG (Export): boxes, titles, ids, main fields and the
 * `after` arrows, at the positions on screen, in the theme's colours. Pure (a string
 * out), so it is unit tested and the PNG is this SVG drawn on a canvas.
 */
import type { XY } from './layout';
import { orthogonalPath, routePath } from './geometry';

export interface ExportNode {
  position: XY;
  width: number;
  height: number;
  kind: string;
  title: string;
  id: string;
  main: string;
  state?: string;
}

export interface ExportEdge {
  from: XY;
  to: XY;
  route?: XY[];
  /** `route` is a detour (straight segments), drawn as the canvas draws it. */
  detour?: boolean;
}

export interface ExportColors {
  background: string;
  foreground: string;
  muted: string;
  node: string;
  border: string;
  edge: string;
  kinds: ReadonlyMap<string, string>;
}

const esc = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function clip(text: string, length: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}

export function graphSvg(nodes: readonly ExportNode[], edges: readonly ExportEdge[], colors: ExportColors, margin = 20): string {
  let x1 = Infinity;
  let y1 = Infinity;
  let x2 = -Infinity;
  let y2 = -Infinity;
  for (const n of nodes) {
    x1 = Math.min(x1, n.position.x);
    y1 = Math.min(y1, n.position.y);
    x2 = Math.max(x2, n.position.x + n.width);
    y2 = Math.max(y2, n.position.y + n.height);
  }
  if (!Number.isFinite(x1)) {
    x1 = y1 = 0;
    x2 = y2 = 1;
  }
  const width = Math.ceil(x2 - x1 + 2 * margin);
  const height = Math.ceil(y2 - y1 + 2 * margin);
  const dx = margin - x1;
  const dy = margin - y1;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="13">`);
  out.push(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${esc(colors.edge)}"/></marker></defs>`);
  out.push(`<rect width="100%" height="100%" fill="${esc(colors.background)}"/>`);
  out.push(`<g transform="translate(${dx} ${dy})">`);
  for (const e of edges) {
    const d = e.route && e.route.length >= 2
      ? (e.detour ? orthogonalPath(e.route) : routePath(e.route))
      : `M ${e.from.x} ${e.from.y} C ${e.from.x} ${(e.from.y + e.to.y) / 2} ${e.to.x} ${(e.from.y + e.to.y) / 2} ${e.to.x} ${e.to.y}`;
    out.push(`<path d="${d}" fill="none" stroke="${esc(colors.edge)}" stroke-width="1.5" marker-end="url(#arrow)"/>`);
  }
  for (const n of nodes) {
    const { x, y } = n.position;
    const kind = colors.kinds.get(n.kind) ?? colors.border;
    out.push(`<g class="node" data-id="${esc(n.id)}">`);
    out.push(`<rect x="${x}" y="${y}" width="${n.width}" height="${n.height}" rx="6" fill="${esc(colors.node)}" stroke="${esc(colors.border)}"${n.kind === 'note' ? ' stroke-dasharray="4 3"' : ''}/>`);
    out.push(`<rect x="${x}" y="${y}" width="5" height="${n.height}" rx="2" fill="${esc(kind)}"/>`);
    out.push(`<text x="${x + 12}" y="${y + 20}" fill="${esc(colors.foreground)}" font-weight="600">${esc(clip(n.title, 30))}</text>`);
    out.push(`<text x="${x + 12}" y="${y + 38}" fill="${esc(colors.muted)}" font-size="11">${esc(clip(`${n.id} · ${n.kind}${n.state ? ` · ${n.state}` : ''}`, 40))}</text>`);
    if (n.main) {
      out.push(`<text x="${x + 12}" y="${y + 56}" fill="${esc(colors.muted)}" font-size="11">${esc(clip(n.main, 40))}</text>`);
    }
    out.push('</g>');
  }
  out.push('</g></svg>');
  return out.join('\n');
}
