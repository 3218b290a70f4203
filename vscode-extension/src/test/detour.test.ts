// Unit tests of edge detours (node --test): once a node is moved, its edges go around the
// other nodes in straight segments, and come straight down into their target.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crossings, detour, Rect, simplified, STUB } from '../webview/detour';
import { orthogonalPath } from '../webview/geometry';
import { edgeId, toFlow } from '../webview/flowElements';
import type { GraphView } from '../model/graphModel';
import type { XY } from '../webview/layout';

const box = (x: number, y: number, width = 240, height = 84): Rect => ({ x, y, width, height });
const bottomOf = (r: Rect): XY => ({ x: r.x + r.width / 2, y: r.y + r.height });
const topOf = (r: Rect): XY => ({ x: r.x + r.width / 2, y: r.y });

/** The last segment comes straight down into `to`, long enough for the arrowhead. */
function endsDownInto(path: XY[], to: XY): boolean {
  const [a, b] = path.slice(-2);
  return b.x === to.x && b.y === to.y && a.x === to.x && b.y - a.y >= STUB;
}

// (case, source, target, the other nodes)
const CASES: [string, Rect, Rect, Rect[]][] = [
  ['straight below, nothing between', box(0, 0), box(0, 200), []],
  ['a node between them in the same column', box(0, 0), box(0, 400), [box(0, 170)]],
  ['the target moved beside its source', box(0, 0), box(300, 20), [box(0, 200), box(300, 200)]],
  ['the target moved above its source', box(0, 400), box(0, 0), [box(0, 200)]],
  ['a row of nodes between', box(280, 0), box(280, 400), [box(0, 170), box(280, 170), box(560, 170)]],
  ['the target moved far right past a node', box(0, 0), box(600, 300), [box(300, 120), box(0, 300)]],
];

test('a detour crosses no other node, leaves its source downward and comes straight down into its target', () => {
  for (const [name, source, target, others] of CASES) {
    const from = bottomOf(source);
    const to = topOf(target);
    const path = detour(from, to, source, target, others);
    assert.deepEqual(path[0], from, name);
    assert.ok(path[1].x === from.x && path[1].y > from.y, `${name}: leaves downward ${JSON.stringify(path)}`);
    assert.ok(endsDownInto(path, to), `${name}: ends ${JSON.stringify(path)}`);
    assert.equal(crossings(path, source, target, others), 0, `${name}: ${JSON.stringify(path)}`);
    for (let i = 1; i < path.length; i += 1) {
      assert.ok(path[i].x === path[i - 1].x || path[i].y === path[i - 1].y, `${name}: segment ${i} is straight`);
    }
  }
});

test('with nothing in the way the detour is the straight line', () => {
  const source = box(0, 0);
  const target = box(0, 200);
  assert.deepEqual(detour(bottomOf(source), topOf(target), source, target, []), [bottomOf(source), topOf(target)]);
});

test('simplified drops repeats and points on a straight line, but keeps a turn back', () => {
  assert.deepEqual(simplified([{ x: 0, y: 0 }, { x: 0, y: 5 }, { x: 0, y: 5 }, { x: 0, y: 9 }, { x: 4, y: 9 }]), [{ x: 0, y: 0 }, { x: 0, y: 9 }, { x: 4, y: 9 }]);
  assert.deepEqual(simplified([{ x: 0, y: 0 }, { x: 0, y: 9 }, { x: 0, y: 3 }]), [{ x: 0, y: 0 }, { x: 0, y: 9 }, { x: 0, y: 3 }]);
});

test('orthogonalPath rounds each corner by at most its radius', () => {
  assert.equal(orthogonalPath([{ x: 0, y: 0 }, { x: 0, y: 20 }, { x: 30, y: 20 }]), 'M 0 0 L 0 14 Q 0 20 6 20 L 30 20');
  assert.equal(orthogonalPath([{ x: 0, y: 0 }, { x: 0, y: 10 }, { x: 20, y: 10 }]), 'M 0 0 L 0 5 Q 0 10 5 10 L 20 10', 'half the shorter segment at most');
  assert.equal(orthogonalPath([{ x: 0, y: 0 }, { x: 0, y: 4 }, { x: 20, y: 4 }]), 'M 0 0 L 0 2 Q 0 4 2 4 L 20 4');
  assert.equal(orthogonalPath([{ x: 1, y: 2 }]), '');
});

const CHAIN: GraphView = {
  uri: 'file:///w/c.hwf.json', version: 1, stale: false, name: 'c',
  nodes: ['t', 'a', 'b', 'c'].map((id, i) => ({ id, kind: i === 0 ? 'trigger' : 'agent', plan_index: i === 0 ? null : i, main: null, defects: [] })),
  edges: [{ from: 't', to: 'a' }, { from: 'a', to: 'b' }, { from: 'b', to: 'c' }],
};

test('toFlow: the edges of a moved node take a detour around the others; the rest keep the layout\'s route', () => {
  const first = toFlow(CHAIN);
  const moved = new Map(first.positions).set('c', { x: first.positions.get('c')!.x + 400, y: first.positions.get('t')!.y });
  const after = toFlow(CHAIN, { positions: moved, previousKeys: first.keys, routes: first.routes });
  const data = (from: string, to: string) => after.edges.find((e) => e.id === edgeId(from, to))!.data as { route?: XY[]; detour?: XY[] };
  assert.ok(data('t', 'a').route && !data('t', 'a').detour, 'untouched edge: its route');
  assert.ok(data('a', 'b').route, 'untouched edge: its route');
  const around = data('b', 'c').detour;
  assert.ok(around && !data('b', 'c').route, 'the moved node\'s edge: a detour');
  const rect = (key: string): Rect => ({ ...after.positions.get(key)!, width: 240, height: after.nodes.find((n) => n.id === key)!.initialHeight! });
  assert.equal(crossings(around, rect('b'), rect('c'), ['t', 'a'].map(rect)), 0, JSON.stringify(around));
  const measured = toFlow(CHAIN, { positions: moved, previousKeys: first.keys, routes: first.routes, measured: (k) => (k === 'b' ? { width: 240, height: 150 } : undefined) });
  const start = (measured.edges.find((e) => e.id === edgeId('b', 'c'))!.data as { detour: XY[] }).detour[0];
  assert.equal(start.y, after.positions.get('b')!.y + 150, 'a measured height is where the edge leaves');
});
