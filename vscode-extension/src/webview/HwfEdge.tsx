/**
 * An `after` edge: along the layout's route (around the nodes, each end at its own spot
 * on the node's side) while its two nodes stay where the layout put them; once one of
 * them was moved or placed later, along its detour (detour.ts: straight segments around
 * the other nodes, straight down into the target); a curve between the handles in a
 * graph too big to route.
 */
import { BaseEdge, EdgeLabelRenderer, getBezierPath, type Edge, type EdgeProps } from '@xyflow/react';
import { orthogonalPath, routePath } from './geometry';
import type { XY } from './layout';

export type HwfEdgeData = { route?: XY[]; detour?: XY[]; defects?: unknown[]; sourceOffset?: number; targetOffset?: number };

export function HwfEdge(props: EdgeProps<Edge<HwfEdgeData>>) {
  const { sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, data, markerEnd, label, style, interactionWidth } = props;
  const route = data?.route ?? data?.detour;
  let path: string;
  let labelX: number;
  let labelY: number;
  if (route && route.length >= 2) {
    // the ends on the nodes' real edges (their heights are measured, the route's estimated)
    const points = route.map((p) => ({ ...p }));
    points[0].y = sourceY;
    points[points.length - 1].y = targetY;
    path = data?.route ? routePath(points) : orthogonalPath(points);
    const mid = points[Math.floor(points.length / 2)];
    labelX = mid.x;
    labelY = mid.y;
  } else {
    // no route: each end at its own spot along the node's side (endOffsets)
    [path, labelX, labelY] = getBezierPath({ sourceX: sourceX + (data?.sourceOffset ?? 0), sourceY, targetX: targetX + (data?.targetOffset ?? 0), targetY, sourcePosition, targetPosition });
  }
  return (
    <>
      <BaseEdge path={path} markerEnd={markerEnd} style={style} interactionWidth={interactionWidth} />
      {label && (
        <EdgeLabelRenderer>
          <div className="hwf-edge-label" style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }}>
            {label}
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
}
