/**
 * One design node on the canvas: kind glyph, title, id, main field, defects, its state
 * in the shown run as a badge and an outer ring (the kind's colour stays), how long the
 * step took, its output on hover, and in place: Answer / Respond when the run is parked
 * here, Run from here.
 */
import { Handle, NodeProps, Position, type Node } from '@xyflow/react';
import { useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { previewPlace } from './geometry';
import { stateClass } from '../model/runModel';
import type { HwfNodeData } from './flowElements';
import { defectText, kindIcon } from '../model/graphModel';
import type { CanvasMessage } from '../model/protocol';

/** The kinds a breakpoint stops before (a trigger and a note never run). */
const STEPS: ReadonlySet<string> = new Set(['agent', 'condition', 'approval', 'output']);

function mainText(value: unknown): string {
  if (value === undefined || value === null) {
    return '';
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function makeHwfNode(post: (message: CanvasMessage) => void, answerable: () => boolean) {
  return function HwfNode({ data }: NodeProps<Node<HwfNodeData>>) {
    const { node, run, current, runsEnabled, stale, stopped, breakpoint, debuggable } = data;
    const [hover, setHover] = useState<ReturnType<typeof previewPlace> | null>(null);
    const box = useRef<HTMLDivElement | null>(null);
    // The card goes when the pointer is elsewhere, also when the element it entered was
    // replaced under it (an answer redraws the node) and so never sent a mouseleave.
    useEffect(() => {
      if (!hover) return;
      const away = (e: MouseEvent) => {
        if (!(e.target instanceof Element && box.current?.contains(e.target))) setHover(null);
      };
      document.addEventListener('mousemove', away);
      return () => document.removeEventListener('mousemove', away);
    }, [hover]);
    // A new state (an approval just answered) closes the card even with the pointer still on the node.
    const state = run?.state;
    useEffect(() => setHover(null), [state]);
    const defects = node.defects ?? [];
    const classes = ['hwf-node', `hwf-kind-${node.kind}`];
    if (defects.length) classes.push('hwf-has-defects');
    if (current) classes.push('hwf-current');
    if (run) classes.push(`hwf-state-${stateClass(run.state)}`);
    if (stopped) classes.push('hwf-stopped');
    if (breakpoint) classes.push('hwf-has-breakpoint');
    const main = mainText(node.main?.value);
    const preview = run && (run.detail || run.preview);
    return (
      <div
        ref={box}
        className={classes.join(' ')}
        title={defects.length ? defectText(defects) : undefined}
        data-node-id={node.id}
        onMouseEnter={(e) => preview && setHover(previewPlace(e.currentTarget.getBoundingClientRect(), { width: window.innerWidth, height: window.innerHeight }))}
        onMouseLeave={() => setHover(null)}
      >
        {node.kind !== 'note' && node.kind !== 'trigger' && <Handle type="target" position={Position.Top} />}
        {stopped && <div className="hwf-stopped-label" role="status">⏸ stopped before this step</div>}
        <div className="hwf-node-head">
          {debuggable && STEPS.has(node.kind) && (
            <button
              className={`hwf-breakpoint nodrag${breakpoint ? ' hwf-breakpoint-on' : ''}`}
              title={breakpoint ? `Remove the breakpoint before ${node.id}` : `Stop before ${node.id} runs (a breakpoint on its line)`}
              aria-label={`Breakpoint on ${node.id}`}
              aria-pressed={Boolean(breakpoint)}
              onClick={(e) => {
                e.stopPropagation();
                post({ type: 'breakpoint', id: node.id });
              }}
            />
          )}
          <span className="hwf-kind-icon" aria-hidden="true">{kindIcon(node.kind)}</span>
          <span className="hwf-node-title">{node.title || node.id}</span>
          {defects.length > 0 && <span className="hwf-defect-badge" aria-label={`${defects.length} problems`}>{defects.length}</span>}
          {runsEnabled && node.kind !== 'note' && (
            <button
              className="hwf-run-here nodrag"
              disabled={stale}
              title={stale ? 'The design is not valid JSON: fix it to run from here' : `Run from here: ${node.id} and everything after it`}
              aria-label={`Run from ${node.id}`}
              onClick={(e) => {
                e.stopPropagation();
                post({ type: 'run', action: 'fromHere', id: node.id });
              }}
            >
              ▶
            </button>
          )}
        </div>
        <div className="hwf-node-sub">
          <span className="hwf-node-id">{node.id}</span> · <span className="hwf-node-kind">{node.kind}</span>
          {run && !runsEnabled && (
            <span className={`hwf-state-badge hwf-badge-${stateClass(run.state)}`} title={run.times || undefined}>{run.label}</span>
          )}
          {run && runsEnabled && (
            <button
              className={`hwf-state-badge hwf-badge-${stateClass(run.state)} nodrag`}
              title={`${run.times ? `${run.times}. ` : ''}Show this step of run ${run.ofRun}`}
              onClick={(e) => {
                e.stopPropagation();
                post({ type: 'step', runId: run.ofRun, id: node.id });
              }}
            >
              {run.label}
            </button>
          )}
          {run?.duration && <span className="hwf-duration" title="How long the step took">{run.duration}</span>}
        </div>
        {main && <div className="hwf-node-main">{main}</div>}
        {hover && preview && createPortal(
          <div className="hwf-preview" role="tooltip" style={{ left: hover.left, top: hover.top, bottom: hover.bottom }}>{preview}</div>,
          document.body,
        )}
        {run?.runId && answerable() && <ParkedActions runId={run.runId} options={run.options ?? []} post={post} />}
        {node.kind !== 'note' && <Handle type="source" position={Position.Bottom} />}
      </div>
    );
  };
}

/** Answer buttons (an approval) or a response box (an agent step) on the parked node. */
function ParkedActions({ runId, options, post }: { runId: string; options: string[]; post: (m: CanvasMessage) => void }) {
  const [text, setText] = useState('');
  if (options.length > 0) {
    return (
      <div className="hwf-parked nodrag" onClick={(e) => e.stopPropagation()}>
        {options.map((choice) => (
          <button key={choice} className="hwf-answer hwf-primary" onClick={() => post({ type: 'run', action: 'answer', runId, choice })}>
            {choice}
          </button>
        ))}
      </div>
    );
  }
  return (
    <div className="hwf-parked nodrag nowheel" onClick={(e) => e.stopPropagation()}>
      <input
        className="hwf-respond-input"
        placeholder="Response…"
        aria-label="Agent response"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === 'Enter' && text) post({ type: 'run', action: 'respond', runId, output: text });
        }}
      />
      <button className="hwf-respond hwf-primary" disabled={!text} onClick={() => post({ type: 'run', action: 'respond', runId, output: text })}>
        Respond
      </button>
    </div>
  );
}
