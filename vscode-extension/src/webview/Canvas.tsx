/**
 * The canvas: the design as a graph (React Flow), a palette, an inspector for the
 * selected node, the shown run's states. It never changes the design itself: every edit
 * is a request to the host, and what it draws is the host's graph. Where nodes sit is the
 * canvas's own (layout.ts): kept across edits, moved by dragging, stored by the host
 * outside the design.
 */
import {
  Background,
  Controls,
  ControlButton,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  getViewportForBounds,
  useNodesInitialized,
  useReactFlow,
  type Connection,
  type Edge,
  type EdgeTypes,
  type Node,
  type NodeChange,
  type NodeTypes,
} from '@xyflow/react';
import { Component, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { RunSummary, StepInfo } from '../model/runModel';
import { ACTIVE, statusLabel } from '../model/runModel';
import { exportColors, toPng } from './exportDom';
import { graphSvg } from './exportImage';
import { flowIds, handlesOf, HwfNodeData, reuseUnchanged, toFlow } from './flowElements';
import { defectText, GraphNode, GraphView, inPlanOrder, KINDS, kindIcon, nodeRuns } from '../model/graphModel';
import { HwfEdge } from './HwfEdge';
import { makeHwfNode } from './HwfNode';
import { Inspector } from './Inspector';
import { Box, firstView, panToShow } from './geometry';
import type { Layout, Route } from './layout';
import type { CanvasConfig, CanvasMessage, ExpressionItem, Host, HostMessage, PositionEntry } from '../model/protocol';

const DEFAULT_CONFIG: CanvasConfig = { editable: true, runsEnabled: true, answerable: true };
/** Past this many nodes only the ones in view are rendered, and a new node is centred rather than fitted. */
const BIG = 200;
/** A graph this small fits the view: no minimap over its nodes unless asked for. */
const MINIMAP_FROM = 13;

function colorMode(): 'light' | 'dark' {
  const body = document.body.classList;
  return body.contains('vscode-light') || body.contains('vscode-high-contrast-light') ? 'light' : 'dark';
}

export function Canvas({ host, header }: { host: Host; header?: ReactNode }) {
  return (
    <ReactFlowProvider>
      <CanvasInner host={host} header={header} />
    </ReactFlowProvider>
  );
}

/** A drawing that throws (a design no one foresaw) shows why, and the next graph tries again. */
class FlowBoundary extends Component<{ resetKey: number; children: ReactNode }, { error: string; key: number }> {
  state = { error: '', key: -1 };
  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  static getDerivedStateFromProps(props: { resetKey: number }, state: { error: string; key: number }) {
    return props.resetKey !== state.key ? { error: '', key: props.resetKey } : null;
  }
  render() {
    return this.state.error ? <div className="hwf-empty" role="alert">The canvas could not draw this design: {this.state.error}</div> : this.props.children;
  }
}

interface Placement {
  keys: string[];
  positions: Layout;
  /** The last full layout's routes (drawn where their ends have not moved); none: not known. */
  routes?: ReadonlyMap<string, Route>;
}

function CanvasInner({ host, header }: { host: Host; header?: ReactNode }) {
  const [graph, setGraph] = useState<GraphView | null>(null);
  const [seq, setSeq] = useState(0);
  const [run, setRun] = useState<{ run: RunSummary | null; steps: StepInfo[]; pinned?: boolean; seq?: number }>({ run: null, steps: [] });
  const [cursor, setCursor] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [selectedEdge, setSelectedEdge] = useState<string | null>(null);
  const [config, setConfig] = useState<CanvasConfig>(DEFAULT_CONFIG);
  const [notice, setNotice] = useState<string>('');
  const [debug, setDebug] = useState<{ stopped: string | null; breakpoints: string[] } | null>(null);
  /** Bumped when nodes move without a new graph (drag, Re-layout). */
  const [moves, setMoves] = useState(0);
  /** Bumped when React Flow measured nodes: the next node objects carry the sizes (`measured`). */
  const [sized, setSized] = useState(0);
  const [minimap, setMinimap] = useState<boolean | null>(null);
  const placement = useRef<Placement | null>(null);
  const stored = useRef<Layout | null>(null);
  const relayout = useRef(false);
  const dropped = useRef<{ kind: string; at: { x: number; y: number }; before: Set<string> } | null>(null);
  const keptNodes = useRef(new Map<string, { key: string; value: Node<HwfNodeData> }>());
  const keptEdges = useRef(new Map<string, { key: string; value: Edge }>());
  const configRef = useRef(config);
  configRef.current = config;
  /** The inspector's completion requests waiting for the host's answer, by request number. */
  const completing = useRef(new Map<number, (items: ExpressionItem[]) => void>());
  const lastRequest = useRef(0);
  /** When the last graph message came (the canvas's own share of an edit's latency). */
  const received = useRef(0);

  const post = useCallback((m: CanvasMessage) => host.post(m), [host]);
  const flowInstance = useReactFlow();
  const pane = useRef<HTMLDivElement | null>(null);
  const root = useRef<HTMLDivElement | null>(null);

  useEffect(() => {
    const off = host.onMessage((m: HostMessage) => {
      switch (m.type) {
        case 'graph':
          received.current = performance.now();
          setGraph(m.graph);
          setSeq(m.seq);
          break;
        case 'run':
          setRun({ run: m.run, steps: m.steps, pinned: m.pinned, seq: m.seq });
          break;
        case 'cursor':
          setCursor(m.id);
          break;
        case 'config':
          setConfig(m.config);
          break;
        case 'notice':
          setNotice(m.text);
          break;
        case 'positions':
          stored.current = new Map(m.entries.map(([k, x, y]) => [k, { x, y }]));
          break;
        case 'completions':
          completing.current.get(m.request)?.(m.items);
          completing.current.delete(m.request);
          break;
        case 'debug':
          setDebug({ stopped: m.stopped, breakpoints: m.breakpoints });
          break;
      }
    });
    host.post({ type: 'ready' });
    return off;
  }, [host]);

  // "Drawn" once the browser has painted this graph: the host measures edit → redraw.
  useLayoutEffect(() => {
    if (graph) {
      requestAnimationFrame(() => post({ type: 'drawn', seq, ms: Math.round(performance.now() - received.current) }));
    }
  }, [graph, seq, post]);

  // The same for a run's states: the host measures run file change → canvas.
  useLayoutEffect(() => {
    const runSeq = run.seq;
    if (runSeq !== undefined) {
      requestAnimationFrame(() => post({ type: 'runDrawn', seq: runSeq }));
    }
  }, [run, post]);

  const nodeTypes: NodeTypes = useMemo(() => ({ hwf: makeHwfNode(post, () => configRef.current.answerable) }), [post]);
  const edgeTypes: EdgeTypes = useMemo(() => ({ hwf: HwfEdge }), []);
  const runs = useMemo(() => nodeRuns(run.run ?? undefined, run.steps), [run]);

  const flow = useMemo(() => {
    if (!graph) {
      return { nodes: [] as Node<HwfNodeData>[], edges: [] as Edge[], keys: [] as string[], byKey: new Map<string, GraphNode>() };
    }
    let previous: Placement | undefined = placement.current ?? undefined;
    if (!previous && stored.current && stored.current.size > 0) {
      previous = { keys: [...stored.current.keys()], positions: stored.current };
    }
    if (relayout.current) {
      previous = undefined;
      relayout.current = false;
    }
    let positions = previous?.positions;
    const drop = dropped.current;
    if (drop && positions) {
      // the node dropped from the palette: the new key of its kind goes where it was dropped
      const ordered = inPlanOrder(graph.nodes);
      const keys = flowIds(ordered);
      const i = keys.findIndex((k, j) => !drop.before.has(k) && ordered[j].kind === drop.kind);
      if (i >= 0) {
        positions = new Map(positions).set(keys[i], drop.at);
        dropped.current = null;
      }
    }
    const measured = (key: string) => {
      const size = flowInstance.getInternalNode(key)?.measured;
      return size?.width && size.height ? { width: size.width, height: size.height } : undefined;
    };
    const result = toFlow(graph, { runs, current: cursor, selected, selectedEdge, runsEnabled: config.runsEnabled, debug: config.debuggable ? debug ?? { stopped: null, breakpoints: [] } : undefined, positions, previousKeys: previous?.keys, routes: previous?.routes, handles: graph.nodes.length > BIG, measured });
    placement.current = { keys: result.keys, positions: result.positions, routes: result.routes };
    // A node object without `measured` makes React Flow forget its handles until it measures
    // the node again, and an edge into a node without handles is not drawn (edges that
    // "vanished", issue 44): every node object carries the size React Flow measured and its
    // handles where HwfNode draws them, so its edges are drawn whatever React Flow measured.
    const nodes = result.nodes.map((n) => {
      const size = measured(n.id);
      const node = result.byKey.get(n.id);
      const handles = node ? handlesOf(node, size?.height ?? n.initialHeight ?? 84) : n.handles;
      return { ...n, ...(size ? { measured: size } : {}), handles };
    });
    return { nodes: reuseUnchanged(keptNodes.current, nodes), edges: reuseUnchanged(keptEdges.current, result.edges), keys: result.keys, byKey: result.byKey };
    // `moves`: a drag or Re-layout changed `placement` without a new graph
  }, [graph, runs, cursor, selected, selectedEdge, config.runsEnabled, config.debuggable, debug, moves, sized]);

  // Positions go to the host (stored per document, outside the design), a moment after they settle.
  const lastStored = useRef('');
  useEffect(() => {
    const p = placement.current;
    if (!p || !config.editable) {
      return;
    }
    const timer = setTimeout(() => {
      const entries: PositionEntry[] = [...p.positions].map(([k, { x, y }]) => [k, Math.round(x), Math.round(y)]);
      const text = JSON.stringify(entries);
      if (text !== lastStored.current) {
        lastStored.current = text;
        post({ type: 'positions', entries });
      }
    }, 400);
    return () => clearTimeout(timer);
  }, [flow, post, config.editable]);

  // The first view: readable (text at 80 % of the editor's font size at least), the
  // graph's top first; the user scrolls (or uses the minimap) for the rest. Re-layout
  // frames the graph the same way. Nothing else re-fits: selecting never moves the view.
  const nodesInitialized = useNodesInitialized();
  const framed = useRef(false);
  const reframe = useRef(false);
  const frame = useCallback((duration: number) => {
    const box = pane.current?.getBoundingClientRect();
    if (!box || box.width === 0 || flow.nodes.length === 0 || flow.nodes.length > BIG) return false;
    const view = firstView(boundsOf(flow.nodes), box, readableZoom(root.current ?? document.body));
    void flowInstance.setViewport({ x: view.x, y: view.y, zoom: view.zoom }, { duration });
    return true;
  }, [flow.nodes, flowInstance]);
  useEffect(() => {
    if (nodesInitialized && !framed.current) framed.current = frame(0);
  }, [nodesInitialized, frame]);
  // A canvas drawn while its pane had no width yet (a tab opened in the background, a
  // theme change mid-start) is framed when the pane first gets one, not at the first click.
  const frameLatest = useRef(frame);
  frameLatest.current = frame;
  const initializedRef = useRef(nodesInitialized);
  initializedRef.current = nodesInitialized;
  // Fit view (the zoom buttons'): the whole graph at once. React Flow's own waits until every
  // node object carries a measured size, which a node the last edit changed may not yet.
  const fitAll = useCallback(() => {
    const box = pane.current?.getBoundingClientRect();
    if (!box || flow.nodes.length === 0) return;
    void flowInstance.setViewport(getViewportForBounds(boundsOf(flow.nodes), box.width, box.height, 0.05, 1, 0.1), { duration: 150 });
  }, [flow.nodes, flowInstance]);
  useEffect(() => {
    if (reframe.current) {
      reframe.current = false;
      frame(200);
    }
  }, [moves]);

  // A new node (the palette, an edit in the text) out of view: the view pans to it, same zoom.
  const shownKeys = useRef<Set<string> | null>(null);
  const keysText = flow.keys.join('\n');
  useEffect(() => {
    const box = pane.current?.getBoundingClientRect();
    const before = shownKeys.current;
    shownKeys.current = new Set(flow.keys);
    const fresh = before ? flow.nodes.find((n) => !before.has(n.id)) : undefined;
    if (!box || !fresh) {
      return;
    }
    const view = flowInstance.getViewport();
    const to = panToShow(boxOf(fresh), view, box, CLEAR);
    if (to) void flowInstance.setViewport({ ...to, zoom: view.zoom }, { duration: 200 });
  }, [keysText]);

  // A run parks at a node (an approval to answer, an agent's response to give): that node comes into view.
  const waiting = flow.nodes.filter((n) => n.data.run?.state === 'waiting').map((n) => n.id).join('\n');
  useEffect(() => {
    const node = flow.nodes.find((n) => n.data.run?.state === 'waiting');
    const box = pane.current?.getBoundingClientRect();
    if (!node || !box) return;
    const view = flowInstance.getViewport();
    const to = panToShow(boxOf(node), view, box, CLEAR);
    if (to) void flowInstance.setViewport({ ...to, zoom: view.zoom }, { duration: 200 });
  }, [waiting]);

  // The pane narrows (the inspector opens, the editor group shrinks): the selected node
  // stays in view (a pan, never a re-fit).
  const nodesRef = useRef(flow.nodes);
  nodesRef.current = flow.nodes;
  const selectedRef = useRef(selected);
  selectedRef.current = selected;
  useEffect(() => {
    const element = pane.current;
    if (!element || typeof ResizeObserver === 'undefined') {
      return;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const observer = new ResizeObserver(() => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (!framed.current) {
          if (initializedRef.current) framed.current = frameLatest.current(0);
          return;
        }
        const node = nodesRef.current.find((n) => n.id === selectedRef.current);
        const box = element.getBoundingClientRect();
        if (!node || box.width === 0) return;
        const view = flowInstance.getViewport();
        const to = panToShow(boxOf(node), view, box, CLEAR);
        if (to) void flowInstance.setViewport({ ...to, zoom: view.zoom }, { duration: 150 });
      }, 120);
    });
    observer.observe(element);
    return () => {
      clearTimeout(timer);
      observer.disconnect();
    };
  }, [flowInstance]);

  const reveal = useCallback((id: string) => post({ type: 'reveal', id }), [post]);

  // The inspector's completion: asked of the host, answered by its `completions` message.
  const complete = useCallback(
    (id: string, field: string, text: string, offset: number) =>
      new Promise<ExpressionItem[]>((resolve) => {
        const request = ++lastRequest.current;
        for (const [n, answer] of completing.current) {
          if (n < request - 8) { answer([]); completing.current.delete(n); } // an answer that never came
        }
        completing.current.set(request, resolve);
        post({ type: 'complete', request, id, field, text, offset });
      }),
    [post],
  );

  // The node under the text cursor scrolls into view when it is off screen.
  useEffect(() => {
    const node = flow.nodes.find((n) => n.id === cursor);
    const box = pane.current?.getBoundingClientRect();
    if (!node || !box) {
      return;
    }
    const { x, y, zoom } = flowInstance.getViewport();
    const left = node.position.x * zoom + x;
    const top = node.position.y * zoom + y;
    if (left < 0 || top < 0 || left + (node.width ?? 0) * zoom > box.width || top + (node.initialHeight ?? 0) * zoom > box.height) {
      void flowInstance.setCenter(node.position.x + (node.width ?? 0) / 2, node.position.y + (node.initialHeight ?? 0) / 2, { zoom, duration: 200 });
    }
    // Only when the cursor moves to another node, not on every redraw.
  }, [cursor]);

  // Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y outside a text box are the document's undo / redo: caught
  // before VS Code's webview sees the key (it forwards it to the workbench, whose undo then
  // ran on the text editor the host had just focused: two undos for one key).
  useEffect(() => {
    const onUndoKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      const typing = !!target?.closest?.('input, textarea, select');
      const key = e.key.toLowerCase();
      if ((e.ctrlKey || e.metaKey) && !typing && configRef.current.editable && (key === 'z' || key === 'y')) {
        e.preventDefault();
        e.stopImmediatePropagation();
        post({ type: key === 'y' || e.shiftKey ? 'redo' : 'undo' });
      }
    };
    window.addEventListener('keydown', onUndoKey, true);
    return () => window.removeEventListener('keydown', onUndoKey, true);
  }, [post]);

  // Keys: Enter on a focused node (Tab walks them in plan order) reveals its JSON.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (e.key === 'Enter' && target?.classList.contains('react-flow__node')) {
        const key = target.getAttribute('data-id');
        const node = key !== null ? flow.byKey.get(key) : undefined;
        if (key !== null && node) {
          setSelected(key);
          reveal(node.id);
        }
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [flow.byKey, reveal]);

  const onConnect = useCallback(
    (c: Connection) => {
      if (configRef.current.editable && c.source && c.target && c.source !== c.target) {
        post({ type: 'edit', edit: 'connect', from: c.source, to: c.target });
      }
    },
    [post],
  );

  // Deleting on the canvas asks the server; the canvas itself keeps what the text says.
  // React Flow hands over a deleted node's edges too: deleting the node already removes
  // every reference to it (one edit), so only the edges between surviving nodes go apart.
  const onBeforeDelete = useCallback(
    async ({ nodes, edges }: { nodes: Node[]; edges: Edge[] }) => {
      if (configRef.current.editable) {
        const gone = new Set(nodes.map((n) => n.id));
        for (const edge of edges.filter((e) => !gone.has(e.source) && !gone.has(e.target))) {
          post({ type: 'edit', edit: 'disconnect', from: edge.source, to: edge.target });
        }
        for (const node of nodes) {
          post({ type: 'edit', edit: 'deleteNode', id: (node.data as HwfNodeData).node.id });
        }
      }
      return false;
    },
    [post],
  );

  // Dragging a node moves it on the canvas only (the design has no positions).
  const onNodesChange = useCallback((changes: NodeChange[]) => {
    const p = placement.current;
    let moved = false;
    for (const c of changes) {
      if (c.type === 'position' && c.position && p) {
        p.positions = new Map(p.positions).set(c.id, c.position);
        moved = true;
      }
    }
    if (moved) setMoves((n) => n + 1);
    if (changes.some((c) => c.type === 'dimensions')) setSized((n) => n + 1);
  }, []);

  const onDrop = useCallback(
    (e: React.DragEvent) => {
      const kind = e.dataTransfer.getData('application/x-hwf-kind');
      if (!kind || !configRef.current.editable) {
        return;
      }
      e.preventDefault();
      const at = flowInstance.screenToFlowPosition({ x: e.clientX, y: e.clientY });
      const onNode = (e.target as HTMLElement).closest('.react-flow__node')?.getAttribute('data-id');
      const parent = onNode ? flow.byKey.get(onNode) : undefined;
      dropped.current = { kind, at: { x: at.x - NODE_HALF, y: at.y - 20 }, before: new Set(flow.keys) };
      post({ type: 'edit', edit: 'addNode', kind, after: parent && parent.kind !== 'note' && kind !== 'note' && kind !== 'trigger' ? parent.id : null });
    },
    [flowInstance, flow, post],
  );

  const doExport = useCallback(
    async (format: 'png' | 'svg') => {
      const colors = exportColors(root.current ?? document.body);
      const nodes = flow.nodes.map((n) => {
        const measured = flowInstance.getNode(n.id)?.measured;
        const data = n.data.node;
        const main = data.main?.value;
        return {
          position: n.position,
          width: measured?.width ?? n.width ?? 240,
          height: measured?.height ?? n.initialHeight ?? 84,
          kind: data.kind,
          title: data.title || data.id,
          id: data.id,
          main: typeof main === 'string' ? main : main === undefined || main === null ? '' : JSON.stringify(main),
          state: n.data.run?.state,
        };
      });
      const box = new Map(nodes.map((n, i) => [flow.nodes[i].id, n]));
      const edges = flow.edges.flatMap((e) => {
        const a = box.get(e.source);
        const b = box.get(e.target);
        if (!a || !b) return [];
        const data = e.data as { route?: { x: number; y: number }[]; detour?: { x: number; y: number }[] } | undefined;
        const route = data?.route ?? data?.detour;
        const from = { x: a.position.x + a.width / 2, y: a.position.y + a.height };
        const to = { x: b.position.x + b.width / 2, y: b.position.y };
        const fixed = route && route.length >= 2 ? route.map((p, i) => (i === 0 ? { x: p.x, y: from.y } : i === route.length - 1 ? { x: p.x, y: to.y } : p)) : undefined;
        return [{ from, to, route: fixed, detour: !data?.route && fixed !== undefined }];
      });
      const svg = graphSvg(nodes, edges, colors);
      post({ type: 'export', format, data: format === 'svg' ? svg : await toPng(svg) });
    },
    [flow, flowInstance, post],
  );

  const selectedNode = selected !== null ? flow.byKey.get(selected) : undefined;
  const edgeSelected = flow.edges.find((e) => e.id === selectedEdge);
  // Text that is not JSON: the graph drawn is the last one read (or none), so neither an added
  // node nor a run could be of what is drawn.
  const unreadable = graph?.stale ? 'The design is not valid JSON' : undefined;
  const big = flow.nodes.length > BIG;
  const showMap = minimap ?? (flow.nodes.length >= MINIMAP_FROM && !big);

  return (
    <div className="hwf-canvas" ref={root}>
      <div className="hwf-toolbar" role="toolbar" aria-label="Canvas">
        {header}
        <span className="hwf-design-name">{graph?.name ?? ''}</span>
        {graph?.stale && (
          <span className="hwf-stale" role="status" title="The text is not valid JSON: this is the last graph that could be read.">
            stale
          </span>
        )}
        <span className="hwf-counts" aria-live="polite">
          {flow.nodes.length} nodes · {flow.edges.length} edges
        </span>
        {config.editable && (
          <span className="hwf-palette" role="group" aria-label="Add a node (click: after the selected node; or drag onto the canvas)">
            Add:
            {KINDS.map((kind) => (
              <button
                key={kind}
                className="hwf-add"
                data-kind={kind}
                aria-label={`Add ${kind}`}
                draggable={unreadable === undefined}
                disabled={unreadable !== undefined}
                onDragStart={(e) => {
                  e.dataTransfer.setData('application/x-hwf-kind', kind);
                  e.dataTransfer.effectAllowed = 'copy';
                }}
                title={unreadable ? `${unreadable}: fix it to add nodes` : `Add a ${kind} node${selectedNode ? ` after ${selectedNode.id}` : ''} (or drag it onto the canvas)`}
                onClick={() => post({ type: 'edit', edit: 'addNode', kind, after: selectedNode && selectedNode.kind !== 'note' ? selectedNode.id : null })}
              >
                {kindIcon(kind)}<span className="hwf-add-label"> {kind}</span>
              </button>
            ))}
          </span>
        )}
        <span className="hwf-spacer" />
        <button className="hwf-relayout" title="Lay the whole graph out again (forgets moved nodes)" onClick={() => { relayout.current = true; reframe.current = true; setMoves((n) => n + 1); }}>
          Re-layout
        </button>
        <button className="hwf-export" data-format="png" title="Export the graph as a PNG image" onClick={() => void doExport('png')}>PNG</button>
        <button className="hwf-export" data-format="svg" title="Export the graph as an SVG image" onClick={() => void doExport('svg')}>SVG</button>
        <RunStatus run={run.run} />
        {run.pinned && (
          <button className="hwf-newest" title="Show the newest run of the design again" onClick={() => post({ type: 'newest' })}>
            newest run
          </button>
        )}
        {config.runsEnabled && (
          <span className="hwf-run-actions">
            {run.run && ACTIVE.has(run.run.status) && (
              <button className="hwf-cancel-run" title={`Cancel run ${run.run.run_id}`} onClick={() => post({ type: 'run', action: 'cancel', runId: run.run!.run_id })}>
                ■ Cancel run
              </button>
            )}
            <button
              className="hwf-start-run hwf-primary"
              disabled={unreadable !== undefined || (run.run?.status === 'running' && !run.pinned)}
              title={unreadable ? `${unreadable}: fix it to start a run` : run.run?.status === 'running' && !run.pinned ? `Run ${run.run.run_id} is running: wait for it, or cancel it` : 'Start a run of the design'}
              onClick={() => post({ type: 'run', action: 'start' })}
            >
              ▶ Start run
            </button>
          </span>
        )}
      </div>
      <div className="hwf-body">
        <div className="hwf-flow" ref={pane} onDragOver={(e) => { if (config.editable) { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; } }} onDrop={onDrop}>
          <div className="hwf-banners">
            {(graph?.defects?.length ?? 0) > 0 && <div className="hwf-graph-defects" role="alert">{defectText(graph?.defects)}</div>}
            {notice && <div className="hwf-notice" role="status">{notice}<button className="hwf-notice-close" aria-label="Dismiss" onClick={() => setNotice('')}>×</button></div>}
            {config.editable && edgeSelected && (
              <div className="hwf-edge-actions">
                <button className="hwf-delete-edge" onClick={() => post({ type: 'edit', edit: 'disconnect', from: edgeSelected.source, to: edgeSelected.target })}>
                  Delete edge {edgeSelected.source} → {edgeSelected.target}
                </button>
              </div>
            )}
          </div>
          <FlowBoundary resetKey={seq}>
            {graph && (
              <ReactFlow
                nodes={flow.nodes}
                edges={flow.edges}
                nodeTypes={nodeTypes}
                edgeTypes={edgeTypes}
                colorMode={colorMode()}
                fitView={false}
                fitViewOptions={{ maxZoom: 1, minZoom: 0.4, padding: 0.1 }}
                defaultViewport={big ? startViewport(flow.nodes) : undefined}
                minZoom={0.05}
                onlyRenderVisibleElements={big}
                nodesDraggable={config.editable}
                onNodesChange={onNodesChange}
                nodesConnectable={config.editable}
                elementsSelectable
                onConnect={onConnect}
                onBeforeDelete={onBeforeDelete}
                deleteKeyCode={config.editable ? ['Delete', 'Backspace'] : null}
                onNodeClick={(_, node) => {
                  setSelected(node.id);
                  setSelectedEdge(null);
                  reveal((node.data as HwfNodeData).node.id);
                }}
                onEdgeClick={(_, edge) => {
                  setSelectedEdge(edge.id);
                  setSelected(null);
                }}
                onPaneClick={() => {
                  setSelected(null);
                  setSelectedEdge(null);
                }}
                proOptions={{ hideAttribution: true }}
              >
                <Background />
                <Controls showInteractive={false} showFitView={false}>
                  <ControlButton className="react-flow__controls-fitview" title="Fit view" aria-label="Fit view" onClick={fitAll}>⤢</ControlButton>
                  <ControlButton title="Re-layout" aria-label="Re-layout" onClick={() => { relayout.current = true; reframe.current = true; setMoves((n) => n + 1); }}>⟲</ControlButton>
                  <ControlButton className="hwf-minimap-toggle" title={showMap ? 'Hide the minimap' : 'Show the minimap'} aria-label="Minimap" aria-pressed={showMap} onClick={() => setMinimap(!showMap)}>▦</ControlButton>
                </Controls>
                {showMap && <MiniMap pannable zoomable ariaLabel="Minimap" nodeColor={(n) => `var(--hwf-kind-${(n.data as HwfNodeData).node.kind || 'agent'}, #888)`} nodeStrokeWidth={0} style={{ width: 160, height: 120 }} />}
              </ReactFlow>
            )}
          </FlowBoundary>
          {!graph && <div className="hwf-empty">Reading the design…</div>}
        </div>
        {selectedNode && (
          <Inspector
            key={`${selectedNode.id}:${JSON.stringify(selectedNode.fields ?? selectedNode.main ?? null)}`}
            node={selectedNode}
            config={config}
            post={post}
            onRenamed={(id) => setSelected(id)}
            complete={complete}
          />
        )}
      </div>
    </div>
  );
}

const NODE_HALF = 120;
/** Room kept between a node brought into view and the pane's edge (the zoom buttons, the minimap). */
const CLEAR = 48;

/** A drawn node's box (flow units): its measured size once React Flow measured it. */
function boxOf(n: Node): Box {
  return { x: n.position.x, y: n.position.y, width: n.measured?.width ?? n.width ?? 240, height: n.measured?.height ?? n.initialHeight ?? 84 };
}

/** The box around every node. */
function boundsOf(nodes: readonly Node[]): Box {
  const boxes = nodes.map(boxOf);
  const x = Math.min(...boxes.map((b) => b.x));
  const y = Math.min(...boxes.map((b) => b.y));
  return { x, y, width: Math.max(...boxes.map((b) => b.x + b.width)) - x, height: Math.max(...boxes.map((b) => b.y + b.height)) - y };
}

/**
 * The zoom at which a node's text is 80 % of the editor's font size (VS Code's
 * `--vscode-editor-font-size`; the canvas's own size where there is none), at most 1.
 */
function readableZoom(element: Element): number {
  const style = getComputedStyle(element);
  const text = Number.parseFloat(style.fontSize) || 13;
  const editor = Number.parseFloat(style.getPropertyValue('--vscode-editor-font-size')) || text;
  return Math.min(1, Math.ceil((100 * 0.8 * editor) / text) / 100); // rounded up: never a hair below 80 %
}

/** A big graph opens on its first node at full size (fitting thousands of nodes would show dots). */
function startViewport(nodes: readonly Node[]): { x: number; y: number; zoom: number } {
  const first = nodes.reduce<Node | undefined>((top, n) => (!top || n.position.y < top.position.y ? n : top), undefined);
  return first ? { x: -first.position.x + 40, y: -first.position.y + 40, zoom: 1 } : { x: 0, y: 0, zoom: 1 };
}

function RunStatus({ run }: { run: RunSummary | null }) {
  if (!run) {
    return <span className="hwf-run-status">no runs yet</span>;
  }
  return (
    <span className={`hwf-run-status hwf-run-${run.status}`} role="status" aria-live="polite">
      run {run.run_id}: {statusLabel(run.status)}
    </span>
  );
}
