// The canvas on designs no one planned for (issue 30): ids that are Object.prototype's
// names, a 3,000-node chain, repeated ids next to the keys repeats used to get; the layout
// keeps what the edit did not touch; the inspector's inputs; export; messages for people.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RunSummary, stepsOfRun } from '../model/runModel';
import { fieldText, parseFieldText } from '../webview/fieldInput';
import { graphSvg } from '../webview/exportImage';
import { edgeId, endOffsets, flowIds, toFlow } from '../webview/flowElements';
import { GraphNode, GraphView, nodeRuns } from '../model/graphModel';
import { previewPlace } from '../webview/geometry';
import { DAGRE_LIMIT, layeredLayout, stableLayout } from '../webview/layout';
import { editFailureText, parseCanvasMessage } from '../model/protocol';

const graphOf = (nodes: GraphNode[], edges: [string, string][]): GraphView => ({
  uri: 'file:///w/d.hwf.json',
  version: 1,
  stale: false,
  name: 'd',
  nodes,
  edges: edges.map(([from, to]) => ({ from, to })),
  defects: [],
});

const HOSTILE = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'prototype'];

test('ids that are Object.prototype names are drawn and laid out like any other', () => {
  const nodes: GraphNode[] = [{ id: 'start', kind: 'trigger' }, ...HOSTILE.map((id) => ({ id, kind: 'agent' }))];
  const edges: [string, string][] = [['start', 'constructor'], ['constructor', '__proto__'], ['__proto__', 'toString'], ['toString', 'valueOf'], ['start', 'hasOwnProperty'], ['hasOwnProperty', 'prototype']];
  const { nodes: drawn, edges: lines, positions } = toFlow(graphOf(nodes, edges));
  assert.deepEqual(drawn.map((n) => n.id).sort(), ['start', ...HOSTILE].sort());
  assert.equal(lines.length, edges.length);
  for (const n of drawn) {
    assert.ok(Number.isFinite(n.position.x) && Number.isFinite(n.position.y), n.id);
  }
  const y = (id: string) => positions.get(id)!.y;
  for (const [a, b] of edges) assert.ok(y(a) < y(b), `${a} above ${b}`);
  // and a run on them: keyed by a Map, not an object
  const run: RunSummary = { run_id: 'r', name: 'd', status: 'completed', step_states: HOSTILE.map((id) => ({ id, type: 'agent', status: 'done' })) };
  const states = nodeRuns(run, stepsOfRun({ outputs: { constructor: 'c', __proto__: 'p' } }, run));
  assert.deepEqual(HOSTILE.map((id) => states.get(id)?.state), HOSTILE.map(() => 'done'));
});

test('a 3,000-node chain lays out without recursion, one rank per node, in well under 2 s', () => {
  const count = 3000;
  const nodes: GraphNode[] = [{ id: 'n0', kind: 'trigger' }];
  const edges: [string, string][] = [];
  for (let i = 1; i < count; i += 1) {
    nodes.push({ id: `n${i}`, kind: 'agent' });
    edges.push([`n${i - 1}`, `n${i}`]);
  }
  const started = Date.now();
  const { nodes: drawn, edges: lines, positions } = toFlow(graphOf(nodes, edges));
  const ms = Date.now() - started;
  assert.equal(drawn.length, count);
  assert.equal(lines.length, count - 1);
  for (let i = 1; i < count; i += 1) assert.ok(positions.get(`n${i}`)!.y > positions.get(`n${i - 1}`)!.y);
  assert.ok(ms < 2000, `${ms} ms`);
  assert.ok(count > DAGRE_LIMIT);
});

test('the layered layout takes cycles and self-loops (a design being edited) without looping', () => {
  const at = layeredLayout(['a', 'b', 'c', 'd'], [
    { id: '1', source: 'a', target: 'b' }, { id: '2', source: 'b', target: 'c' }, { id: '3', source: 'c', target: 'b' }, { id: '4', source: 'd', target: 'd' },
  ], () => ({ width: 240, height: 84 }));
  assert.equal(at.size, 4);
  assert.ok(at.get('a')!.y < at.get('b')!.y);
});

test('a repeated id never takes the key of a real id (a, a, a#2 → a, a#3, a#2)', () => {
  const cases: [string[], string[]][] = [
    [['a', 'a', 'a#2'], ['a', 'a#3', 'a#2']],
    [['a', 'a#2', 'a', 'a'], ['a', 'a#2', 'a#3', 'a#4']],
    [['x', 'x', 'x'], ['x', 'x#2', 'x#3']],
    [['__proto__', '__proto__'], ['__proto__', '__proto__#2']],
  ];
  for (const [ids, keys] of cases) {
    assert.deepEqual(flowIds(ids.map((id) => ({ id, kind: 'agent' }))), keys, ids.join(','));
  }
  const { nodes } = toFlow(graphOf([{ id: 'a', kind: 'trigger' }, { id: 'a', kind: 'agent' }, { id: 'a#2', kind: 'agent' }], [['a', 'a#2']]));
  assert.equal(new Set(nodes.map((n) => n.id)).size, 3, 'three nodes drawn, three keys');
});

test('edge keys never collide, whatever the ids hold', () => {
  assert.notEqual(edgeId('a->b', 'c'), edgeId('a', 'b->c'));
  assert.notEqual(edgeId('["a', 'b","c"]'), edgeId('a', 'b'));
});

const chain = (ids: string[]) => graphOf(
  ids.map((id, i) => ({ id, kind: i === 0 ? 'trigger' : 'agent' })),
  ids.slice(1).map((id, i) => [ids[i], id]),
);

test('after an edit, the nodes it did not touch stay put; a new node goes under its parent, clear of others', () => {
  const first = toFlow(chain(['t', 'a', 'b', 'c']));
  // an agent added after `a` (it also runs after a, beside b)
  const added = graphOf(
    [{ id: 't', kind: 'trigger' }, { id: 'a', kind: 'agent' }, { id: 'b', kind: 'agent' }, { id: 'c', kind: 'agent' }, { id: 'agent', kind: 'agent' }],
    [['t', 'a'], ['a', 'b'], ['b', 'c'], ['a', 'agent']],
  );
  const second = toFlow(added, { positions: first.positions, previousKeys: first.keys, routes: first.routes });
  for (const id of ['t', 'a', 'b', 'c']) assert.deepEqual(second.positions.get(id), first.positions.get(id), id);
  const a = second.positions.get('a')!;
  const b = second.positions.get('b')!;
  const fresh = second.positions.get('agent')!;
  assert.equal(fresh.y, b.y, 'one rank under its parent');
  assert.ok(fresh.x >= b.x + 240, 'beside b, not on it');
  assert.ok(fresh.y > a.y);
  // ten more edits: each keeps the others where they were
  let last = second;
  let graph = added;
  for (let i = 2; i <= 11; i += 1) {
    graph = { ...graph, nodes: [...graph.nodes, { id: `n${i}`, kind: 'agent' }], edges: [...graph.edges, { from: 'c', to: `n${i}` }] };
    const next = toFlow(graph, { positions: last.positions, previousKeys: last.keys, routes: last.routes });
    for (const [id, p] of last.positions) assert.deepEqual(next.positions.get(id), p, `${id} after edit ${i}`);
    last = next;
  }
  const spots = new Set([...last.positions.values()].map((p) => `${p.x},${p.y}`));
  assert.equal(spots.size, last.positions.size, 'no two nodes on one spot');
});

test('a renamed node keeps its spot; a dragged position survives the next edit; routes only while their ends stay', () => {
  const first = toFlow(chain(['t', 'a', 'b']));
  const renamed = toFlow(chain(['t', 'a2', 'b']), { positions: first.positions, previousKeys: first.keys, routes: first.routes });
  assert.deepEqual(renamed.positions.get('a2'), first.positions.get('a'));
  const dragged = new Map(first.positions).set('b', { x: 500, y: 600 });
  const next = toFlow(chain(['t', 'a', 'b']), { positions: dragged, previousKeys: first.keys, routes: first.routes });
  assert.deepEqual(next.positions.get('b'), { x: 500, y: 600 });
  const route = (g: ReturnType<typeof toFlow>, a: string, b: string) => (g.edges.find((e) => e.id === edgeId(a, b))!.data as { route?: unknown[] }).route;
  assert.ok(route(first, 't', 'a')!.length >= 2, 'dagre routes the edge');
  assert.ok(route(next, 't', 'a'), 'the untouched edge keeps its route');
  assert.equal(route(next, 'a', 'b'), undefined, 'the edge to the moved node is drawn fresh');
  assert.equal(stableLayout(['x'], [], () => ({ width: 1, height: 1 }), new Map([['y', { x: 0, y: 0 }]]), ['y', 'z']), undefined, 'nothing known: a full layout');
});

test('the inspector reads and checks typed fields', () => {
  const retries = { name: 'retries', type: 'integer', minimum: 0, maximum: 3, value: 1 };
  assert.equal(fieldText(retries), '1');
  assert.deepEqual(parseFieldText(retries, '2'), { value: 2 });
  assert.ok('error' in parseFieldText(retries, '7'));
  assert.ok('error' in parseFieldText(retries, '1.5'));
  const options = { name: 'options', type: 'string-list', value: ['approve', 'reject'] };
  assert.equal(fieldText(options), 'approve\nreject');
  assert.deepEqual(parseFieldText(options, 'ship\n\n hold \n'), { value: ['ship', 'hold'] });
  const deliver = { name: 'deliver', type: 'enum', enum: ['notification', 'channel'] };
  assert.equal(fieldText(deliver), '');
  assert.deepEqual(parseFieldText(deliver, 'channel'), { value: 'channel' });
  assert.ok('error' in parseFieldText(deliver, 'email'));
  assert.ok('error' in parseFieldText({ name: 'prompt', type: 'string', required: true }, '  '));
  assert.deepEqual(parseFieldText({ name: 'model', type: 'string' }, 'gpt'), { value: 'gpt' });
});

test('a refused edit reads as a sentence, without the command or its argument list', () => {
  const raw = "hwf.edit.connect: 'draft' cannot run after 'publish': 'publish' already runs after 'draft', that would make a cycle; arguments: [uri, from_id, to_id]";
  const text = editFailureText({ edit: 'connect', from: 'publish', to: 'draft' }, raw);
  assert.equal(text, "Connecting publish → draft would make a cycle: 'publish' already runs after 'draft'");
  assert.doesNotMatch(text, /hwf\.edit|arguments/);
  assert.equal(editFailureText({ edit: 'deleteNode', id: 'x' }, "hwf.edit.deleteNode: node 'x' is not a node of this design; arguments: [uri, id]"), "Cannot delete x: node 'x' is not a node of this design");
});

test('the new canvas messages are checked: positions, undo, redo, export', () => {
  assert.deepEqual(parseCanvasMessage({ type: 'positions', entries: [['__proto__', 1, 2]] }), { type: 'positions', entries: [['__proto__', 1, 2]] });
  assert.ok('invalid' in parseCanvasMessage({ type: 'positions', entries: [['a', 'x', 2]] }));
  assert.ok('invalid' in parseCanvasMessage({ type: 'positions', entries: [['a', Infinity, 2]] }));
  assert.deepEqual(parseCanvasMessage({ type: 'undo' }), { type: 'undo' });
  assert.deepEqual(parseCanvasMessage({ type: 'redo' }), { type: 'redo' });
  assert.deepEqual(parseCanvasMessage({ type: 'export', format: 'svg', data: '<svg/>' }), { type: 'export', format: 'svg', data: '<svg/>' });
  assert.ok('invalid' in parseCanvasMessage({ type: 'export', format: 'gif', data: '' }));
});

test('export: a standalone SVG with every node and arrow, text escaped', () => {
  const svg = graphSvg(
    [
      { position: { x: 0, y: 0 }, width: 240, height: 84, kind: 'trigger', title: 'Start <here> & "now"', id: 'start', main: '' },
      { position: { x: 0, y: 144 }, width: 240, height: 84, kind: 'agent', title: 'Draft', id: '__proto__', main: 'Write it', state: 'done' },
    ],
    [{ from: { x: 120, y: 84 }, to: { x: 120, y: 144 } }],
    { background: '#fff', foreground: '#000', muted: '#666', node: '#eee', border: '#ccc', edge: '#888', kinds: new Map([['agent', '#00f']]) },
  );
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="280" height="268"/);
  assert.equal((svg.match(/<g class="node"/g) ?? []).length, 2);
  assert.equal((svg.match(/marker-end="url\(#arrow\)"/g) ?? []).length, 1);
  assert.match(svg, /Start &lt;here&gt; &amp; &quot;now&quot;/);
  assert.match(svg, /__proto__ · agent · done/);
  assert.match(svg, /fill="#00f"/);
});

test('step durations from the summary\'s times; none without them', () => {
  const run: RunSummary = {
    run_id: 'r', name: 'd', status: 'completed',
    step_states: [
      { id: 'a', type: 'agent', status: 'done', started_at: '2026-12-02T10:00:00Z', ended_at: '2026-12-02T10:00:01.500Z' },
      { id: 'b', type: 'agent', status: 'done', started_at: '2026-12-02T10:00:00Z', ended_at: '2026-12-02T10:03:05Z' },
      { id: 'c', type: 'agent', status: 'done' },
    ],
  };
  const states = nodeRuns(run, stepsOfRun(undefined, run));
  // runModel.durationOf's words, as the Runs view shows them
  assert.deepEqual(['a', 'b', 'c'].map((id) => states.get(id)!.duration), ['1.50 s', '3 min 5 s', undefined]);
});

test('the hover card goes above a node near the bottom of the window and stays inside it', () => {
  const view = { width: 800, height: 600 };
  assert.deepEqual(previewPlace({ left: 10, top: 100, bottom: 184 }, view), { left: 10, top: 188 });
  assert.deepEqual(previewPlace({ left: 700, top: 480, bottom: 564 }, view), { left: 472, bottom: 124 });
});

test('edges drawn without a route meet their node at distinct points; restored positions get routes back', () => {
  const edges = [{ from: 'a', to: 'd' }, { from: 'b', to: 'd' }, { from: 'c', to: 'd' }];
  const at = new Map([['a', { x: 0, y: 0 }], ['b', { x: 300, y: 0 }], ['c', { x: 600, y: 0 }], ['d', { x: 300, y: 200 }]]);
  const offsets = endOffsets(edges, at);
  assert.deepEqual(edges.map((e) => offsets.get(edgeId(e.from, e.to))!.targetOffset), [-18, 0, 18]);
  const first = toFlow(chain(['t', 'a', 'b']));
  const restored = toFlow(chain(['t', 'a', 'b']), { positions: first.positions, previousKeys: first.keys }); // no routes known
  assert.ok(restored.edges.every((e) => ((e.data as { route?: unknown[] }).route ?? []).length >= 2), 'every edge routed again');
});

test('big graphs give React Flow the handles up front (no render of every node to measure them)', () => {
  const g = graphOf([{ id: 't', kind: 'trigger' }, { id: 'a', kind: 'agent' }, { id: 'n', kind: 'note' }], [['t', 'a']]);
  const types = (flow: ReturnType<typeof toFlow>, id: string) => (flow.nodes.find((n) => n.id === id)!.handles ?? []).map((h) => h.type);
  const big = toFlow(g, { handles: true });
  assert.deepEqual([types(big, 't'), types(big, 'a'), types(big, 'n')], [['source'], ['target', 'source'], []]);
  assert.equal(toFlow(g).nodes[0].handles, undefined, 'small graphs: React Flow measures them');
});
