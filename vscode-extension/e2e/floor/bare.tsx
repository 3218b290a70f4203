// The floor of the canvas's latency (the canvas redraws within 2× the time a bare page with
// the same rendering and layout libraries takes to draw the same graph): React, React Flow
// and dagre, the same graph message, a full dagre layout per message and React Flow's
// default nodes; nothing else. Posts "drawn" like the canvas: the frame after the commit.
import '@xyflow/react/dist/style.css';
import dagre from '@dagrejs/dagre';
import { ReactFlow, type Edge, type Node } from '@xyflow/react';
import { useLayoutEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';

declare function acquireVsCodeApi(): { postMessage(message: unknown): void };
const api = acquireVsCodeApi();

interface Graph {
  nodes: { id: string; title?: string | null; main?: { value: unknown } | null }[];
  edges: { from: string; to: string }[];
}

function toFlow(graph: Graph): { nodes: Node[]; edges: Edge[] } {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 40, ranksep: 60 });
  g.setDefaultEdgeLabel(() => ({}));
  graph.nodes.forEach((n) => g.setNode(n.id, { width: 240, height: 84 }));
  graph.edges.forEach((e) => g.setEdge(e.from, e.to));
  dagre.layout(g);
  return {
    nodes: graph.nodes.map((n) => ({ id: n.id, position: { x: g.node(n.id).x - 120, y: g.node(n.id).y - 42 }, data: { label: `${n.title ?? n.id}: ${String(n.main?.value ?? '')}` }, width: 240 })),
    edges: graph.edges.map((e) => ({ id: `${e.from}->${e.to}`, source: e.from, target: e.to })),
  };
}

function Bare() {
  const [state, setState] = useState<{ flow: { nodes: Node[]; edges: Edge[] }; seq: number } | null>(null);
  useLayoutEffect(() => {
    const onMessage = (event: MessageEvent) => {
      if (event.data?.type === 'graph') setState({ flow: toFlow(event.data.graph), seq: event.data.seq });
    };
    window.addEventListener('message', onMessage);
    api.postMessage({ type: 'ready' });
    return () => window.removeEventListener('message', onMessage);
  }, []);
  useLayoutEffect(() => {
    if (state) requestAnimationFrame(() => api.postMessage({ type: 'drawn', seq: state.seq }));
  }, [state]);
  return <div style={{ height: '100vh' }}>{state && <ReactFlow nodes={state.flow.nodes} edges={state.flow.edges} fitView />}</div>;
}

createRoot(document.getElementById('root')!).render(<Bare />);
