// Unit tests of the canvas's first view and of keeping a node in view (node --test):
// readable before complete (issue 44), and no jump when nothing is hidden.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstView, panToShow } from '../webview/geometry';

const PANE = { width: 700, height: 800 };
const READABLE = 0.86;

// (case, graph bounds, expected zoom, fits, the graph's top-left on screen)
const FIRST: [string, { x: number; y: number; width: number; height: number }, number, boolean, { x: number; y: number }][] = [
  ['small: whole, at zoom 1, centred', { x: 0, y: 0, width: 240, height: 300 }, 1, true, { x: 230, y: 250 }],
  ['fits between readable and 1: whole, fitted', { x: 0, y: 0, width: 700, height: 800 }, 652 / 700, true, { x: 24, y: 24 + (752 - 800 * (652 / 700)) / 2 }],
  ['tall: readable zoom, its top at the top, centred across', { x: 10, y: -40, width: 500, height: 2000 }, READABLE, false, { x: 24 + (652 - 500 * READABLE) / 2, y: 24 }],
  ['wide and tall: readable zoom from its top-left', { x: 0, y: 0, width: 3000, height: 3000 }, READABLE, false, { x: 24, y: 24 }],
];

test('the first view is readable: the whole graph when it fits at a readable zoom, else its top at a readable zoom', () => {
  for (const [name, graph, zoom, fits, topLeft] of FIRST) {
    const view = firstView(graph, PANE, READABLE);
    assert.ok(Math.abs(view.zoom - zoom) < 1e-9, `${name}: zoom ${view.zoom}, not ${zoom}`);
    assert.ok(view.zoom >= READABLE, `${name}: zoom ${view.zoom} below readable`);
    assert.equal(view.fits, fits, name);
    assert.ok(Math.abs(graph.x * view.zoom + view.x - topLeft.x) < 1e-6, `${name}: left ${graph.x * view.zoom + view.x}`);
    assert.ok(Math.abs(graph.y * view.zoom + view.y - topLeft.y) < 1e-6, `${name}: top ${graph.y * view.zoom + view.y}`);
  }
});

// (case, node box, viewport, expected new x/y or null)
const PAN: [string, { x: number; y: number; width: number; height: number }, { x: number; y: number; zoom: number }, { x: number; y: number } | null][] = [
  ['in view: no move', { x: 100, y: 100, width: 240, height: 80 }, { x: 0, y: 0, zoom: 1 }, null],
  ['cut on the right (the inspector opened): moved left just enough', { x: 600, y: 100, width: 240, height: 80 }, { x: 0, y: 0, zoom: 1 }, { x: -156, y: 0 }],
  ['above the pane: moved down', { x: 100, y: -200, width: 240, height: 80 }, { x: 0, y: 0, zoom: 1 }, { x: 0, y: 216 }],
];

test('a node is brought into view by the smallest pan, the zoom kept', () => {
  for (const [name, box, view, want] of PAN) {
    assert.deepEqual(panToShow(box, view, PANE), want, name);
  }
});
