// Unit tests of the canvas's pure parts (node --test): graph → flow elements, run state
// mapping, the messages between canvas and host, the panel's HTML and the dashboard host.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canvasHtml, designNameFor, makeNonce, RedrawClock } from '../model/canvasModel';
import { RunSummary, stepsOfRun } from '../model/runModel';
import { dashboardHost, DraftState, FetchJSON, routeError } from '../dashboard/dashboardHost';
import { edgeId, NODE_WIDTH, reuseUnchanged, toFlow } from '../webview/flowElements';
import { asGraphView, defectText, GraphDefect, GraphView, nodeAt, nodeRuns } from '../model/graphModel';
import { completeCommand, editCommand, expressionItems, HostMessage, parseCanvasMessage, runCommand } from '../model/protocol';

const range = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

/** review-flow as the server's hwf.graph answers it (docs/commands.md, "Canvas"). */
const REVIEW_FLOW: GraphView = {
  uri: 'file:///w/review-flow.hwf.json',
  version: 3,
  stale: false,
  name: 'review-flow',
  nodes: [
    { id: 'start', kind: 'trigger', title: 'Release branch cut', plan_index: null, main: { field: 'title', value: 'Release branch cut' }, range: range(3, 4, 3, 70), defects: [] },
    { id: 'draft', kind: 'agent', title: 'Draft release notes', plan_index: 0, main: { field: 'prompt', value: 'Draft…' }, range: range(4, 4, 12, 5), defects: [] },
    { id: 'review', kind: 'agent', title: 'Review the draft', plan_index: 1, main: { field: 'prompt', value: 'Review…' }, range: range(13, 4, 22, 5), defects: [] },
    { id: 'good-enough', kind: 'condition', plan_index: 2, main: { field: 'expression', value: 'out.review.score >= 7' }, range: range(23, 4, 29, 5) },
    { id: 'sign-off', kind: 'approval', plan_index: 3, main: { field: 'question', value: 'Publish?' }, range: range(30, 4, 39, 5) },
    { id: 'publish', kind: 'output', plan_index: 4, main: { field: 'deliver', value: 'channel' }, range: range(40, 4, 47, 5) },
    { id: 'how-it-works', kind: 'note', plan_index: null, main: { field: 'text', value: 'A draft…' }, range: range(48, 4, 53, 5) },
  ],
  edges: [
    { from: 'start', to: 'draft' },
    { from: 'draft', to: 'review' },
    { from: 'review', to: 'good-enough' },
    { from: 'good-enough', to: 'sign-off' },
    { from: 'sign-off', to: 'publish' },
    { from: 'draft', to: 'publish' },
    { from: 'review', to: 'publish' },
  ],
  defects: [],
};

test('toFlow draws every node and edge, nodes in plan order, laid out top to bottom', () => {
  const { nodes, edges } = toFlow(REVIEW_FLOW);
  assert.equal(nodes.length, 7);
  assert.equal(edges.length, 7);
  assert.deepEqual(nodes.map((n) => n.id), ['draft', 'review', 'good-enough', 'sign-off', 'publish', 'start', 'how-it-works']);
  const y = (id: string) => nodes.find((n) => n.id === id)!.position.y;
  for (const e of REVIEW_FLOW.edges) {
    assert.ok(y(e.from) < y(e.to), `${e.from} is above ${e.to}`);
  }
  assert.ok(nodes.every((n) => n.width === NODE_WIDTH && n.type === 'hwf'));
  assert.equal(nodes.find((n) => n.id === 'how-it-works')!.connectable, false);
  assert.deepEqual(edges.map((e) => e.id).slice(0, 2), ['["start","draft"]', '["draft","review"]']);
});

test('toFlow on broken designs: repeated ids drawn apart, edges to nowhere dropped, defects marked', () => {
  const cases: [string, Partial<GraphView>, string[], string[], string[]][] = [
    [
      'a repeated id',
      { nodes: [{ id: 'a', kind: 'trigger' }, { id: 'a', kind: 'agent', defects: [{ message: 'duplicate id a' }] }], edges: [] },
      ['a', 'a#2'], [], ['a#2'],
    ],
    [
      'an after naming no node',
      { nodes: [{ id: 't', kind: 'trigger' }, { id: 'x', kind: 'agent' }], edges: [{ from: 'nowhere', to: 'x' }, { from: 't', to: 'x', defects: [{ message: 'bad' }] }] },
      ['t', 'x'], ['["t","x"]'], [],
    ],
  ];
  for (const [name, partial, ids, edgeIds, withDefects] of cases) {
    const { nodes, edges } = toFlow({ ...REVIEW_FLOW, ...partial });
    assert.deepEqual(nodes.map((n) => n.id), ids, name);
    assert.deepEqual(edges.map((e) => e.id), edgeIds, name);
    assert.deepEqual(nodes.filter((n) => (n.data.node.defects ?? []).length > 0).map((n) => n.id), withDefects, name);
  }
  const { edges } = toFlow({ ...REVIEW_FLOW, edges: [{ from: 'start', to: 'draft', defects: [{ message: 'x' }] }] });
  assert.equal(edges[0].className, 'hwf-edge-defect');
});

test('toFlow keeps a given layout (text-only edits do not move nodes) and marks cursor and selection', () => {
  const first = toFlow(REVIEW_FLOW);
  const moved = new Map(first.positions);
  moved.set('draft', { x: 999, y: 5 });
  const again = toFlow(REVIEW_FLOW, { positions: moved, current: 'review', selected: 'publish', selectedEdge: edgeId('draft', 'review') });
  const byId = new Map(again.nodes.map((n) => [n.id, n]));
  assert.deepEqual(byId.get('draft')!.position, { x: 999, y: 5 });
  assert.equal(byId.get('review')!.data.current, true);
  assert.equal(byId.get('draft')!.data.current, false);
  assert.equal(byId.get('publish')!.selected, true);
  assert.equal(again.edges.find((e) => e.id === edgeId('draft', 'review'))!.selected, true);
});

test('reuseUnchanged keeps the objects of elements that show the same (ranges aside)', () => {
  const kept = new Map();
  const first = toFlow(REVIEW_FLOW).nodes;
  reuseUnchanged(kept, first);
  const moved = { ...REVIEW_FLOW, nodes: REVIEW_FLOW.nodes.map((n) => (n.id === 'draft' ? { ...n, main: { field: 'prompt', value: 'Draft it!' } } : { ...n, range: range(90, 0, 91, 0) })) };
  const second = reuseUnchanged(kept, toFlow(moved).nodes);
  const same = second.filter((n, i) => n === first.find((f) => f.id === n.id) && i >= 0).map((n) => n.id);
  assert.deepEqual(same.sort(), ['good-enough', 'how-it-works', 'publish', 'review', 'sign-off', 'start']);
  assert.equal(second.find((n) => n.id === 'draft')!.data.node.main!.value, 'Draft it!');
  reuseUnchanged(kept, second.filter((n) => n.id !== 'start'));
  assert.equal(kept.has('start'), false, 'a node gone is forgotten');
});

test('asGraphView accepts the answer, refuses what is no graph', () => {
  const cases: [unknown, boolean][] = [
    [REVIEW_FLOW, true],
    [{ ...REVIEW_FLOW, stale: true, version: 9 }, true],
    [null, false],
    [{ nodes: 'x', edges: [] }, false],
    [{ nodes: [{ id: 1, kind: 'agent' }, { id: 'a', kind: 'agent' }], edges: [{ from: 'a' }] }, true],
  ];
  assert.equal(asGraphView({ nodes: [{ id: 'x', kind: null }], edges: [] })!.nodes[0].kind, '', 'a kind that is no string');
  for (const [value, ok] of cases) {
    assert.equal(asGraphView(value) !== undefined, ok, JSON.stringify(value)?.slice(0, 60));
  }
  const weird = asGraphView({ nodes: [{ id: 1, kind: 'agent' }, { id: 'a', kind: 'agent' }], edges: [{ from: 'a' }] })!;
  assert.deepEqual([weird.nodes.length, weird.edges.length, weird.stale], [1, 0, false]);
});

const summary = (status: string, steps: [string, string, string | null][], extra: Partial<RunSummary> = {}): RunSummary => ({
  run_id: 'r1',
  name: 'review-flow',
  status,
  step_states: steps.map(([id, type, s]) => ({ id, type, status: s })),
  ...extra,
});

test('nodeRuns shows the server\'s step states as they are (waiting with options)', () => {
  const cases: [string, RunSummary, Record<string, string>, string[] | undefined][] = [
    [
      'parked at the approval',
      summary('awaiting_approval', [['draft', 'agent', 'done'], ['review', 'agent', 'reused'], ['sign-off', 'approval', 'waiting'], ['publish', 'output', 'not run']],
        { pending: { kind: 'approval', node: 'sign-off', options: ['ship', 'hold'] } }),
      { draft: 'done', review: 'reused', 'sign-off': 'waiting', publish: 'not run' },
      ['ship', 'hold'],
    ],
    [
      'running: the server says which step runs',
      summary('running', [['draft', 'agent', 'done'], ['review', 'agent', 'running'], ['publish', 'output', 'not run']]),
      { draft: 'done', review: 'running', publish: 'not run' },
      undefined,
    ],
    [
      'an answered approval stays answered, a rejection rejected, a failed delivery not delivered',
      summary('completed', [['gate', 'condition', 'skipped'], ['sign-off', 'approval', 'answered'], ['no', 'approval', 'rejected'], ['publish', 'output', 'not delivered']]),
      { gate: 'skipped', 'sign-off': 'answered', no: 'rejected', publish: 'not delivered' },
      undefined,
    ],
    [
      'parked agent step: respond, no options',
      summary('awaiting_agent', [['draft', 'agent', 'waiting']], { pending: { kind: 'agent', node: 'draft' } }),
      { draft: 'waiting' },
      [],
    ],
  ];
  for (const [name, run, expected, options] of cases) {
    const states = nodeRuns(run, stepsOfRun(undefined, run));
    assert.deepEqual(Object.fromEntries([...states].map(([id, s]) => [id, s.state])), expected, name);
    const parked = [...states.values()].find((s) => s.runId);
    assert.deepEqual(parked?.options, options, name);
    if (parked) assert.equal(parked.runId, 'r1', name);
  }
  assert.equal(nodeRuns(undefined, []).size, 0);
});

test('nodeAt finds the node under the text cursor', () => {
  const cases: [number, number, string | undefined][] = [
    [3, 4, 'start'], [3, 70, 'start'], [5, 0, 'draft'], [12, 5, 'draft'], [12, 6, undefined], [0, 0, undefined], [49, 2, 'how-it-works'],
  ];
  for (const [line, character, id] of cases) {
    assert.equal(nodeAt(REVIEW_FLOW, line, character), id, `${line}:${character}`);
  }
  assert.equal(nodeAt(undefined, 1, 1), undefined);
});

test('edit and run requests become the contract\'s server commands', () => {
  const uri = 'file:///d.hwf.json';
  const cases: [Parameters<typeof editCommand>[1], string, unknown[]][] = [
    [{ edit: 'connect', from: 'a', to: 'b' }, 'hwf.edit.connect', [uri, 'a', 'b']],
    [{ edit: 'disconnect', from: 'a', to: 'b' }, 'hwf.edit.disconnect', [uri, 'a', 'b']],
    [{ edit: 'addNode', kind: 'agent', after: 'a' }, 'hwf.edit.addNode', [uri, 'agent', 'a']],
    [{ edit: 'addNode', kind: 'note', after: null }, 'hwf.edit.addNode', [uri, 'note', null]],
    [{ edit: 'deleteNode', id: 'a' }, 'hwf.edit.deleteNode', [uri, 'a']],
    [{ edit: 'renameNode', id: 'a', newId: 'b' }, 'hwf.edit.renameNode', [uri, 'a', 'b']],
    [{ edit: 'setField', id: 'a', field: 'prompt', value: 'héllo 👋' }, 'hwf.edit.setField', [uri, 'a', 'prompt', 'héllo 👋']],
    [{ edit: 'removeField', id: 'a', field: 'retries' }, 'hwf.edit.removeField', [uri, 'a', 'retries']],
  ];
  for (const [request, command, args] of cases) {
    assert.deepEqual(editCommand(uri, request), { command, args });
  }
  const runs: [Parameters<typeof runCommand>[1], string, unknown[]][] = [
    [{ action: 'start' }, 'hwf.startRun', [uri]],
    [{ action: 'fromHere', id: 'review' }, 'hwf.runFromHere', [uri, 'review']],
    [{ action: 'answer', runId: 'r1', choice: 'approve' }, 'hwf.answerApproval', ['r1', 'approve']],
    [{ action: 'respond', runId: 'r1', output: 'done' }, 'hwf.respondAgent', ['r1', { output: 'done' }]],
    [{ action: 'cancel', runId: 'r1' }, 'hwf.cancelRun', ['r1']],
  ];
  for (const [request, command, args] of runs) {
    assert.deepEqual(runCommand(uri, request), { command, args });
  }
});

test('parseCanvasMessage passes good messages and drops bad ones with a reason', () => {
  const cases: [unknown, boolean][] = [
    [{ type: 'ready' }, true],
    [{ type: 'newest' }, true],
    [{ type: 'drawn', seq: 3 }, true],
    [{ type: 'drawn' }, false],
    [{ type: 'runDrawn', seq: 4 }, true],
    [{ type: 'runDrawn', seq: '4' }, false],
    [{ type: 'reveal', id: 'a' }, true],
    [{ type: 'reveal', id: 3 }, false],
    [{ type: 'step', runId: 'r1', id: 'a' }, true],
    [{ type: 'step', id: 'a' }, false],
    [{ type: 'run', action: 'cancel', runId: 'r1' }, true],
    [{ type: 'run', action: 'cancel' }, false],
    [{ type: 'edit', edit: 'connect', from: 'a', to: 'b' }, true],
    [{ type: 'edit', edit: 'connect', from: 'a' }, false],
    [{ type: 'edit', edit: 'addNode', kind: 'agent', after: null }, true],
    [{ type: 'edit', edit: 'addNode', kind: 'agent', after: 4 }, false],
    [{ type: 'edit', edit: 'setField', id: 'a', field: 'prompt', value: null }, true],
    [{ type: 'edit', edit: 'setField', id: 'a', field: 'prompt' }, false],
    [{ type: 'edit', edit: 'format', id: 'a' }, false],
    [{ type: 'edit', edit: 'removeField', id: 'a', field: 'title' }, true],
    [{ type: 'edit', edit: 'removeField', id: 'a' }, false],
    [{ type: 'complete', request: 1, id: 'gate', field: 'expression', text: 'out.', offset: 4 }, true],
    [{ type: 'complete', request: 1, id: 'gate', field: 'expression', text: 'out.', offset: 1.5 }, false],
    [{ type: 'complete', id: 'gate', field: 'expression', text: 'out.', offset: 4 }, false],
    [{ type: 'breakpoint', id: 'publish' }, true],
    [{ type: 'breakpoint' }, false],
    [{ type: 'run', action: 'start' }, true],
    [{ type: 'run', action: 'answer', runId: 'r', choice: 'approve' }, true],
    [{ type: 'run', action: 'respond', runId: 'r' }, false],
    [{ type: 'shell', cmd: 'rm' }, false],
    ['ready', false],
    [null, false],
  ];
  for (const [value, ok] of cases) {
    const parsed = parseCanvasMessage(value);
    assert.equal(!('invalid' in parsed), ok, JSON.stringify(value));
  }
});

test('toFlow with the debugger\'s state: the stopped node and the steps with a breakpoint; none of it without a debugger', () => {
  const debug = toFlow(REVIEW_FLOW, { debug: { stopped: 'publish', breakpoints: ['publish', 'review'] } }).nodes;
  const marks = (id: string) => {
    const data = debug.find((n) => n.data.node.id === id)!.data;
    return [data.debuggable, data.stopped, data.breakpoint];
  };
  assert.deepEqual(marks('publish'), [true, true, true]);
  assert.deepEqual(marks('review'), [true, false, true]);
  assert.deepEqual(marks('draft'), [true, false, false]);
  const plain = toFlow(REVIEW_FLOW, {}).nodes.map((n) => Object.keys(n.data).filter((k) => ['debuggable', 'stopped', 'breakpoint'].includes(k)));
  assert.deepEqual(plain.flat(), [], 'a host without a debugger (the dashboard) draws no debug marks');
});

test('the panel HTML has a strict CSP: our nonce for the one script, no remote, no inline', () => {
  const nonce = makeNonce((n) => new Uint8Array(n).map((_, i) => i * 7));
  assert.match(nonce, /^[A-Za-z0-9]{32}$/);
  const html = canvasHtml({ cspSource: 'https://x.vscode-cdn.net', nonce, scriptUri: 'https://x/canvas.js', styleUri: 'https://x/canvas.css' });
  const csp = /content="([^"]*)"/.exec(html)![1];
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, new RegExp(`script-src 'nonce-${nonce}'`));
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  assert.equal((html.match(/<script /g) ?? []).length, 1);
  assert.match(html, new RegExp(`<script nonce="${nonce}" src="https://x/canvas.js">`));
});

test('designNameFor: the design name, else the file stem made legal', () => {
  const cases: [string | null, string, string][] = [
    ['review-flow', '/w/other.hwf.json', 'review-flow'],
    [null, '/w/My Flow.hwf.json', 'my-flow'],
    [null, '/w/workflow-designs/nightly.json', 'nightly'],
    [null, 'C:\\w\\__x.hwf.json', 'x'],
  ];
  for (const [name, file, expected] of cases) {
    assert.equal(designNameFor({ name }, file), expected);
  }
});

test('RedrawClock: the latency of the newest drawn version, older changes forgotten', () => {
  const clock = new RedrawClock();
  clock.changed(4, 1000);
  clock.changed(5, 1010);
  clock.sentAs(1, 5);
  assert.deepEqual(clock.drawn(1, 1042), { version: 5, ms: 32 });
  assert.equal(clock.drawn(1, 1050), undefined, 'a seq is measured once');
  clock.sentAs(2, 4);
  assert.equal(clock.drawn(2, 1060), undefined, 'version 4 was forgotten with 5');
  clock.sentAs(3, null);
  assert.equal(clock.drawn(3, 1070), undefined);
  clock.changed(6, 2000);
  clock.sentAs(4, 6, 2030);
  assert.deepEqual(clock.drawn(4, 2045), { version: 6, ms: 45, graphMs: 30 }, 'the share until the graph came');
});

/** A fake of the plugin's routes: each call logged as `METHOD path body`, answered by `routes`. */
function fakeRoutes(routes: (method: string, path: string, body: unknown) => unknown) {
  const calls: string[] = [];
  const fetchJSON: FetchJSON = async (path, init) => {
    const method = init?.method ?? 'GET';
    calls.push(`${method} ${path.replace('/api/plugins/visual-workflow', '')}${init?.body ? ` ${init.body}` : ''}`);
    return routes(method, path.replace('/api/plugins/visual-workflow', ''), init?.body ? JSON.parse(init.body) : undefined);
  };
  const scheduled: (() => void)[] = [];
  const stored = new Map<string, string>();
  const host = dashboardHost('review flow', fetchJSON, {
    schedule: ((f: () => void) => scheduled.push(f)) as never,
    cancel: () => undefined,
    storage: { getItem: (k) => stored.get(k) ?? null, setItem: (k, v) => void stored.set(k, v) },
  });
  const seen: HostMessage[] = [];
  host.onMessage((m) => seen.push(m));
  const drafts: DraftState[] = [];
  host.onDraft((d) => drafts.push(d));
  return { calls, host, seen, scheduled, stored, drafts };
}
const settle = () => new Promise((r) => setTimeout(r, 5));
const notices = (seen: HostMessage[]) => seen.flatMap((m) => (m.type === 'notice' && m.text ? [m.text] : []));
const graphs = (seen: HostMessage[]) => seen.flatMap((m) => (m.type === 'graph' ? [m.graph.nodes.map((n) => n.id).join(',')] : []));
const withNode = (id: string): GraphView => ({ ...REVIEW_FLOW, nodes: [...REVIEW_FLOW.nodes, { id, kind: 'agent', plan_index: 5, range: range(0, 0, 0, 0), defects: [] }] });

test('the dashboard host: positions, graph and newest run on ready; an idle poll sends its stamp', async () => {
  const parked = summary('awaiting_approval', [['sign-off', 'approval', 'waiting']]);
  const { calls, host, seen, scheduled, stored } = fakeRoutes((_, path) => {
    if (path.endsWith('/graph')) return REVIEW_FLOW;
    if (path.includes('since=s1')) return { unchanged: true, stamp: 's1' };
    if (path.startsWith('/runs?')) return { runs: [parked], stamp: 's1' };
    throw new Error(`404: ${path}`);
  });
  stored.set('hwf-positions:review flow', JSON.stringify([['start', 10, 20]]));
  host.post({ type: 'ready' });
  await settle();
  scheduled.shift()!();
  await settle();
  assert.deepEqual(calls, [
    'GET /designs/review%20flow/graph',
    'GET /runs?design=review%20flow&limit=1',
    'GET /runs?design=review%20flow&limit=1&since=s1',
  ]);
  assert.deepEqual(seen.map((m) => m.type), ['config', 'positions', 'graph', 'run']);
  assert.deepEqual((seen[0] as Extract<HostMessage, { type: 'config' }>).config, { editable: true, runsEnabled: true, answerable: true });
  assert.deepEqual((seen[1] as Extract<HostMessage, { type: 'positions' }>).entries, [['start', 10, 20]]);
  host.post({ type: 'positions', entries: [['draft', 1, 2]] });
  assert.equal(stored.get('hwf-positions:review flow'), '[["draft",1,2]]');
  assert.equal(scheduled.length, 1, 'the next poll is scheduled');
  host.dispose();
});

test('the dashboard host: each edit is sent with the draft the last one made; undo and redo walk the drafts', async () => {
  let n = 0;
  const { calls, host, seen, drafts } = fakeRoutes((method, path, body) => {
    if (path.endsWith('/graph')) return REVIEW_FLOW;
    if (path.startsWith('/runs?')) return { runs: [] };
    if (path.endsWith('/edit')) {
      const request = body as Record<string, unknown>;
      if (request.edit === 'connect') throw new Error('400: {"error": "\'draft\' cannot run after \'publish\': that would make a cycle", "argument": "edit"}');
      n += 1;
      return { text: `text ${n}`, id: `agent-${n}`, graph: withNode(`agent-${n}`), valid: n !== 1, defects: [] };
    }
    throw new Error(`404: ${method} ${path}`);
  });
  host.post({ type: 'ready' });
  await settle();
  host.post({ type: 'edit', edit: 'addNode', kind: 'agent', after: 'draft' });
  host.post({ type: 'edit', edit: 'setField', id: 'agent-1', field: 'prompt', value: 'Hi' });
  host.post({ type: 'edit', edit: 'connect', from: 'publish', to: 'draft' });
  await settle();
  host.post({ type: 'undo' });
  await settle();
  host.post({ type: 'edit', edit: 'deleteNode', id: 'agent-1' });
  await settle();
  host.post({ type: 'undo' });
  host.post({ type: 'redo' });
  await settle();
  assert.deepEqual(calls.filter((c) => c.includes('/edit')), [
    'POST /designs/review%20flow/edit {"edit":"addNode","kind":"agent","after":"draft"}',
    'POST /designs/review%20flow/edit {"edit":"setField","id":"agent-1","field":"prompt","value":"Hi","text":"text 1"}',
    'POST /designs/review%20flow/edit {"edit":"connect","from":"publish","to":"draft","text":"text 2"}',
    'POST /designs/review%20flow/edit {"edit":"deleteNode","id":"agent-1","text":"text 1"}',
  ]);
  const base = REVIEW_FLOW.nodes.map((x) => x.id).join(',');
  assert.deepEqual(graphs(seen), [base, `${base},agent-1`, `${base},agent-2`, `${base},agent-1`, `${base},agent-3`, `${base},agent-1`, `${base},agent-3`]);
  assert.deepEqual(notices(seen), ["Connecting publish → draft would make a cycle: 'draft' cannot run after 'publish': that would make a cycle"]);
  assert.deepEqual(drafts.map((d) => [d.dirty, d.valid]), [[false, undefined], [false, undefined], [true, false], [true, true], [true, false], [true, true], [true, false], [true, true]]);
  host.dispose();
});

test('the dashboard host: save puts the draft, refused with its defects; a run needs it saved', async () => {
  let refuse = true;
  const { calls, host, seen, drafts } = fakeRoutes((method, path) => {
    if (path.endsWith('/graph')) return REVIEW_FLOW;
    if (path.startsWith('/runs?')) return { runs: [] };
    if (path.endsWith('/edit')) return { text: '{"name": "review flow", "nodes": []}', id: null, graph: REVIEW_FLOW, valid: false, defects: [] };
    if (method === 'PUT' && refuse) throw new Error('400: {"error": "design \'review flow\' has 1 defect; it was not saved", "argument": "design", "defects": [{"msg": "a design needs a trigger"}, {"node": "publish", "field": "target", "msg": "channel delivery needs a target"}]}');
    if (method === 'PUT') return { saved: true, path: '/h/workflow-designs/review flow.json' };
    if (path.endsWith('/runs')) return summary('awaiting_approval', [['sign-off', 'approval', 'waiting']], { run_id: 'abc1' });
    throw new Error(`404: ${method} ${path}`);
  });
  host.post({ type: 'ready' });
  await settle();
  assert.equal(await host.save(), true, 'nothing to save');
  host.post({ type: 'edit', edit: 'deleteNode', id: 'start' });
  host.post({ type: 'run', action: 'start' });
  await settle();
  assert.equal(await host.save(), false);
  refuse = false;
  assert.equal(await host.save(), true);
  host.post({ type: 'run', action: 'start' });
  host.post({ type: 'run', action: 'fromHere', id: 'review' });
  host.post({ type: 'run', action: 'answer', runId: 'abc1', choice: 'approve' });
  host.post({ type: 'run', action: 'respond', runId: 'abc1', output: 'x' });
  host.post({ type: 'run', action: 'cancel', runId: 'abc1' });
  await settle();
  assert.deepEqual(calls.filter((c) => !c.startsWith('GET') && !c.includes('/edit')), [
    'PUT /designs/review%20flow {"text":"{\\"name\\": \\"review flow\\", \\"nodes\\": []}"}',
    'PUT /designs/review%20flow {"text":"{\\"name\\": \\"review flow\\", \\"nodes\\": []}"}',
    'POST /designs/review%20flow/runs {}',
    'POST /designs/review%20flow/runs {"from_node":"review"}',
    'POST /runs/abc1/answer {"choice":"approve"}',
    'POST /runs/abc1/respond {"output":"x"}',
    'POST /runs/abc1/cancel {}',
  ]);
  const said = notices(seen);
  assert.equal(said[0], 'Save the design first: a run follows the stored design.');
  assert.equal(said[1], "Not saved: design 'review flow' has 1 defect; it was not saved (a design needs a trigger; publish: channel delivery needs a target)");
  assert.equal(said[2], 'Saved review flow.');
  assert.deepEqual(drafts.at(-1), { dirty: false, valid: false });
  const runs = seen.flatMap((m) => (m.type === 'run' ? [m.run?.run_id ?? null] : []));
  assert.deepEqual(runs, [null, 'abc1']);
  host.dispose();
});

test('routeError reads the routes\' error body', () => {
  assert.equal(routeError(new Error('404: {"error": "no design x"}')), 'no design x');
  assert.equal(routeError(new Error('500: oops')), '500: oops');
  assert.equal(routeError('plain'), 'plain');
});

test('the inspector\'s completion is the server command hwf.completeExpression; malformed items are dropped', () => {
  assert.deepEqual(completeCommand('file:///d.hwf.json', { id: 'gate', text: 'out.', offset: 4 }), {
    command: 'hwf.completeExpression',
    args: ['file:///d.hwf.json', 'gate', 'out.', 4],
  });
  const good = { label: 'review', kind: 'node', text: 'review.', start: 4, end: 4, detail: 'agent' };
  assert.deepEqual(expressionItems({ items: [good, { label: 'x', kind: 'node', text: 'x', start: '4', end: 4 }, null, { ...good, detail: 3 }] }), [good]);
  for (const answer of [undefined, null, 'items', { items: 'no' }]) {
    assert.deepEqual(expressionItems(answer), []);
  }
});

test('the dashboard host answers a completion request through POST /designs/{name}/complete, with the draft once there is one', async () => {
  const item = { label: 'draft', kind: 'node', text: 'draft.', start: 4, end: 4 };
  const { calls, host, seen } = fakeRoutes((_, path) => {
    if (path.endsWith('/graph')) return REVIEW_FLOW;
    if (path.startsWith('/runs?')) return { runs: [] };
    if (path.endsWith('/edit')) return { text: 'the draft', id: null, graph: REVIEW_FLOW, valid: true, defects: [] };
    if (path.endsWith('/complete')) return { items: [item, { label: 'bad' }] };
    throw new Error(`404: ${path}`);
  });
  host.post({ type: 'ready' });
  await settle();
  host.post({ type: 'complete', request: 7, id: 'good-enough', field: 'expression', text: 'out.', offset: 4 });
  await settle();
  host.post({ type: 'edit', edit: 'removeField', id: 'draft', field: 'retries' });
  await settle();
  host.post({ type: 'complete', request: 8, id: 'good-enough', field: 'expression', text: 'out.', offset: 4 });
  await settle();
  assert.deepEqual(calls.filter((c) => !c.startsWith('GET')), [
    'POST /designs/review%20flow/complete {"id":"good-enough","expression":"out.","offset":4}',
    'POST /designs/review%20flow/edit {"edit":"removeField","id":"draft","field":"retries"}',
    'POST /designs/review%20flow/complete {"id":"good-enough","expression":"out.","offset":4,"text":"the draft"}',
  ]);
  assert.deepEqual(seen.filter((m) => m.type === 'completions'), [
    { type: 'completions', request: 7, items: [item] },
    { type: 'completions', request: 8, items: [item] },
  ]);
  host.dispose();
});

test('defectText: a JSON syntax error says where (line and column, 1-based); other defects as they are', () => {
  const cases: [GraphDefect[], string][] = [
    [[{ message: "Expected ',' or '}' after a member", code: 'json-syntax', range: { start: { line: 3, character: 13 } } }], "Not valid JSON at line 4, column 14: Expected ',' or '}' after a member"],
    [[{ message: 'unknown node "x"', code: 'unknown-ref', range: { start: { line: 1, character: 0 } } }], 'unknown node "x"'],
    [[{ message: 'no range', code: 'json-syntax' }, { message: 'second' }], 'no range\nsecond'],
  ];
  for (const [defects, expected] of cases) {
    assert.equal(defectText(defects), expected);
  }
});
