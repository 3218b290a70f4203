/**
 * The canvas: the design as a graph (React Flow, laid out by dagre), a palette, a side
 * form for the selected node, the shown run's states. It never changes the design
 * itself: every edit is a request to the host, and what it draws is the host's graph.
 */
import {
  Background,
  Controls,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Connection,
  type Edge,
  type Node,
  type NodeTypes,
} from '@xyflow/react';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { RunSummary, StepInfo } from '../common/runModel';
import { statusLabel } from '../common/runModel';
import { defectText, GraphView, HwfNodeData, KINDS, kindIcon, layoutKey, Layout, nodeRuns, reuseUnchanged, toFlow } from './graphModel';
import { makeHwfNode } from './HwfNode';
import type { CanvasConfig, CanvasMessage, Host, HostMessage } from './protocol';

const DEFAULT_CONFIG: CanvasConfig = { editable: true, runsEnabled: true, answerable: true };

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

function CanvasInner({ host, header }: { host: Host; header?: ReactNode }) {
  const [graph, setGraph] = useState<GraphView | null>(null);
  const [seq, setSeq] = useState(0);
  const [run, setRun] = useState<{ run: RunSummary | null; steps: StepInfo[]; pinned?: boolean; seq?: number }>({ run: null, steps: [] });
  const [cursor, setCursor] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [selectedEdge, setSelectedEdge] = useState<string | null>(null);
  const [config, setConfig] = useState<CanvasConfig>(DEFAULT_CONFIG);
  const [notice, setNotice] = useState<string>('');
  const layoutCache = useRef<{ key: string; positions: Layout } | null>(null);
  const keptNodes = useRef(new Map<string, { key: string; value: Node<HwfNodeData> }>());
  const keptEdges = useRef(new Map<string, { key: string; value: Edge }>());
  const configRef = useRef(config);
  configRef.current = config;

  const post = useCallback((m: CanvasMessage) => host.post(m), [host]);
  const flowInstance = useReactFlow();
  const pane = useRef<HTMLDivElement | null>(null);

  useEffect(() => {
    const off = host.onMessage((m: HostMessage) => {
      switch (m.type) {
        case 'graph':
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
      }
    });
    host.post({ type: 'ready' });
    return off;
  }, [host]);

  // "Drawn" once the browser has painted this graph: the host measures edit → redraw.
  useLayoutEffect(() => {
    if (graph) {
      requestAnimationFrame(() => post({ type: 'drawn', seq }));
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
  const runs = useMemo(() => nodeRuns(run.run ?? undefined, run.steps), [run]);

  const flow = useMemo(() => {
    if (!graph) {
      return { nodes: [] as Node<HwfNodeData>[], edges: [] as Edge[] };
    }
    const key = layoutKey(graph);
    const cached = layoutCache.current?.key === key ? layoutCache.current.positions : undefined;
    const result = toFlow(graph, { runs, current: cursor, selected, selectedEdge, runsEnabled: config.runsEnabled, positions: cached });
    layoutCache.current = { key, positions: result.positions };
    return { nodes: reuseUnchanged(keptNodes.current, result.nodes), edges: reuseUnchanged(keptEdges.current, result.edges) };
  }, [graph, runs, cursor, selected, selectedEdge, config.runsEnabled]);

  const reveal = useCallback((id: string) => post({ type: 'reveal', id }), [post]);

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

  // Enter on a focused node (Tab walks them in plan order) reveals its JSON.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (e.key === 'Enter' && target?.classList.contains('react-flow__node')) {
        const id = target.getAttribute('data-id');
        if (id) {
          const node = graph?.nodes.find((n) => n.id === id.replace(/#\d+$/, ''));
          if (node) {
            setSelected(id);
            reveal(node.id);
          }
        }
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [graph, reveal]);

  const onConnect = useCallback(
    (c: Connection) => {
      if (configRef.current.editable && c.source && c.target && c.source !== c.target) {
        post({ type: 'edit', edit: 'connect', from: c.source, to: c.target });
      }
    },
    [post],
  );

  // Deleting on the canvas asks the server; the canvas itself keeps what the text says.
  const onBeforeDelete = useCallback(
    async ({ nodes, edges }: { nodes: Node[]; edges: Edge[] }) => {
      if (configRef.current.editable) {
        for (const edge of edges) {
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

  const selectedNode = flow.nodes.find((n) => n.id === selected)?.data.node;
  const edgeSelected = flow.edges.find((e) => e.id === selectedEdge);

  return (
    <div className="hwf-canvas">
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
          <span className="hwf-palette" role="group" aria-label="Add a node">
            Add{selectedNode ? ` after ${selectedNode.id}` : ''}:
            {KINDS.map((kind) => (
              <button
                key={kind}
                className="hwf-add"
                data-kind={kind}
                title={`Add a ${kind} node${selectedNode ? ` after ${selectedNode.id}` : ''}`}
                onClick={() => post({ type: 'edit', edit: 'addNode', kind, after: selectedNode && selectedNode.kind !== 'note' ? selectedNode.id : null })}
              >
                {kindIcon(kind)} {kind}
              </button>
            ))}
          </span>
        )}
        {config.editable && edgeSelected && (
          <button className="hwf-delete-edge" onClick={() => post({ type: 'edit', edit: 'disconnect', from: edgeSelected.source, to: edgeSelected.target })}>
            Delete edge {edgeSelected.source} → {edgeSelected.target}
          </button>
        )}
        <span className="hwf-spacer" />
        <RunStatus run={run.run} />
        {run.pinned && (
          <button className="hwf-newest" title="Show the newest run of the design again" onClick={() => post({ type: 'newest' })}>
            newest run
          </button>
        )}
        {config.runsEnabled && (
          <button className="hwf-start-run" onClick={() => post({ type: 'run', action: 'start' })}>
            ▶ Start run
          </button>
        )}
      </div>
      {(graph?.defects?.length ?? 0) > 0 && <div className="hwf-graph-defects" role="alert">{defectText(graph?.defects)}</div>}
      {notice && <div className="hwf-notice" role="status">{notice}</div>}
      <div className="hwf-body">
        <div className="hwf-flow" ref={pane}>
          {graph && (
            <ReactFlow
              nodes={flow.nodes}
              edges={flow.edges}
              nodeTypes={nodeTypes}
              colorMode={colorMode()}
              fitView
              fitViewOptions={{ maxZoom: 1, minZoom: 0.5, padding: 0.1 }}
              minZoom={0.2}
              nodesDraggable={false}
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
              <Controls showInteractive={false} />
            </ReactFlow>
          )}
          {!graph && <div className="hwf-empty">Reading the design…</div>}
        </div>
        {selectedNode && (
          <SidePanel
            key={`${selectedNode.id}:${JSON.stringify(selectedNode.main?.value ?? null)}`}
            node={selectedNode}
            config={config}
            post={post}
            onRenamed={(id) => setSelected(id)}
          />
        )}
      </div>
    </div>
  );
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

/** The selected node's form: rename it, edit its main field, delete it. */
function SidePanel({ node, config, post, onRenamed }: {
  node: GraphView['nodes'][number];
  config: CanvasConfig;
  post: (m: CanvasMessage) => void;
  onRenamed: (id: string) => void;
}) {
  const [newId, setNewId] = useState(node.id);
  const main = node.main;
  const initial = main ? (typeof main.value === 'string' ? main.value : main.value === undefined || main.value === null ? '' : JSON.stringify(main.value)) : '';
  const [value, setValue] = useState(initial);
  const editable = config.editable;
  return (
    <aside className="hwf-side" aria-label={`Node ${node.id}`}>
      <h2>
        {kindIcon(node.kind)} {node.title || node.id}
      </h2>
      <div className="hwf-side-kind">{node.kind}</div>
      {(node.defects ?? []).length > 0 && <ul className="hwf-side-defects">{node.defects!.map((d, i) => <li key={i}>{d.message}</li>)}</ul>}
      <label>
        id
        <input className="hwf-rename-input" value={newId} readOnly={!editable} onChange={(e) => setNewId(e.target.value)} />
      </label>
      {editable && (
        <button
          className="hwf-rename"
          disabled={newId === node.id || newId === ''}
          onClick={() => {
            post({ type: 'edit', edit: 'renameNode', id: node.id, newId });
            onRenamed(newId);
          }}
        >
          Rename
        </button>
      )}
      {main && (
        <label>
          {main.field}
          <textarea className="hwf-main-input" rows={6} value={value} readOnly={!editable || main.cut === true} onChange={(e) => setValue(e.target.value)} />
        </label>
      )}
      {main?.cut && <div className="hwf-side-note">Too long to edit here: edit it in the text.</div>}
      {editable && main && !main.cut && (
        <button className="hwf-save-main" disabled={value === initial} onClick={() => post({ type: 'edit', edit: 'setField', id: node.id, field: main.field, value })}>
          Save {main.field}
        </button>
      )}
      <button className="hwf-reveal" onClick={() => post({ type: 'reveal', id: node.id })}>
        Show in text
      </button>
      {editable && (
        <button className="hwf-delete-node" onClick={() => post({ type: 'edit', edit: 'deleteNode', id: node.id })}>
          Delete node
        </button>
      )}
    </aside>
  );
}
