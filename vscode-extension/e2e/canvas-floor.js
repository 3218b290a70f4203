#!/usr/bin/env node
// The canvas's latency target, measured (an edit is on the canvas within 2× what a bare page
// with the same rendering and layout libraries takes to redraw the same graph, plus the
// keystroke's diagnostics round trip): the built canvas (dist/webview/canvas.js) against a
// bare page with the same libraries (floor/bare.tsx: React, React Flow, dagre), in the same
// headless Chromium, on the same graphs (7 and 50 nodes): the first draw, and the redraw
// after an edit (one node's main field changed), message → painted frame. Prints the
// medians and the canvas/floor ratios.
//
//   node canvas-floor.js [--rounds N] [--opens N]
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const esbuild = require(path.join(__dirname, '..', 'node_modules', 'esbuild'));
const { chromium } = require('playwright-core');
const { LAUNCH_ARGS } = require('./lib/workbench');
const { option } = require('./lib/options');

const rounds = Number(option('rounds', '20'));
const opens = Number(option('opens', '7'));
const dist = path.join(__dirname, '..', 'dist', 'webview');

const HOST = `<script>
window.times = []; let t0 = 0;
window.send = (graph, seq) => { t0 = performance.now(); window.postMessage({ type: 'graph', graph, seq }, '*'); };
function acquireVsCodeApi() { return { postMessage(m) {
  if (m.type === 'ready') window.ready = true;
  if (m.type === 'drawn') window.times.push([m.seq, performance.now() - t0]);
}, setState() {} }; }
</script>`;

function graph(count, v) {
  const range = (l) => ({ start: { line: l, character: 4 }, end: { line: l + 8, character: 5 } });
  const field = (name, type, value) => ({ name, type, ...(value === undefined ? {} : { value }) });
  const nodes = [{ id: 'start', kind: 'trigger', title: 'Start', plan_index: null, main: { field: 'title', value: 'Start' }, fields: [field('title', 'string', 'Start')], range: range(3), defects: [] }];
  const edges = [];
  for (let i = 1; i < count; i += 1) {
    const prompt = `Do step ${i}.${i === Math.floor(count / 2) ? ` edit ${v}` : ''}`;
    nodes.push({ id: `step-${i}`, kind: 'agent', title: `Step ${i}`, plan_index: i, range: range(4 + 9 * i), defects: [], main: { field: 'prompt', value: prompt },
      fields: [field('title', 'string', `Step ${i}`), field('prompt', 'string', prompt), { name: 'retries', type: 'integer', minimum: 0, maximum: 3 }, { name: 'timeout_minutes', type: 'integer', minimum: 1, maximum: 4320 }, field('profile', 'string'), field('model', 'string')] });
    // a chain with a branch every fifth node, like a real design
    edges.push({ from: i === 1 ? 'start' : `step-${i % 5 === 0 && i > 5 ? i - 3 : i - 1}`, to: `step-${i}` });
  }
  return { uri: 'file:///g.hwf.json', version: v, stale: false, name: 'g', nodes, edges, defects: [] };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hwf-canvas-floor-'));
  await esbuild.build({ entryPoints: { bare: path.join(__dirname, 'floor', 'bare.tsx') }, bundle: true, format: 'iife', jsx: 'automatic', minify: true,
    define: { 'process.env.NODE_ENV': '"production"' }, outdir: dir, logLevel: 'warning' });
  for (const f of ['canvas.js', 'canvas.css']) fs.copyFileSync(path.join(dist, f), path.join(dir, f));
  const style = '<style>html, body, #root { height: 100%; margin: 0; }</style>';
  fs.writeFileSync(path.join(dir, 'canvas.html'), `<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="canvas.css">${style}</head><body class="vscode-dark"><div id="root"></div>${HOST}<script src="canvas.js"></script></body></html>`);
  fs.writeFileSync(path.join(dir, 'bare.html'), `<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="bare.css">${style}</head><body><div id="root"></div>${HOST}<script src="bare.js"></script></body></html>`);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: [...LAUNCH_ARGS, '--allow-file-access-from-files'] });
  const results = {};
  try {
    for (const count of [7, 50]) {
      const firsts = { bare: [], canvas: [] };
      const editsOf = { bare: [], canvas: [] };
      // fresh pages, the two kinds alternating: one open is one sample of the first draw
      for (let open = 0; open < opens; open += 1) {
        for (const which of open % 2 ? ['canvas', 'bare'] : ['bare', 'canvas']) {
          const page = await browser.newPage({ viewport: { width: 900, height: 800 } });
          await page.goto(`file://${dir}/${which}.html`);
          await page.waitForFunction(() => window.ready === true);
          await page.evaluate((g) => window.send(g, 1), graph(count, 1));
          await page.waitForFunction((n) => document.querySelectorAll('.react-flow__node').length === n && window.times.length > 0, count, { timeout: 30000 });
          firsts[which].push((await page.evaluate(() => window.times))[0][1]);
          if (open === 0) {
            for (let v = 2; v < rounds + 2; v += 1) {
              await page.evaluate(([g, s]) => window.send(g, s), [graph(count, v), v]);
              await page.waitForFunction((s) => window.times.some(([seq]) => seq === s), v, { timeout: 10000 });
              await page.waitForTimeout(60);
            }
            editsOf[which] = (await page.evaluate(() => window.times)).filter(([seq]) => seq > 1).map(([, ms]) => ms);
          }
          await page.close();
        }
      }
      for (const which of ['bare', 'canvas']) results[`${which}-${count}`] = { first: median(firsts[which]), edit: median(editsOf[which]) };
    }
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  for (const count of [7, 50]) {
    const b = results[`bare-${count}`];
    const c = results[`canvas-${count}`];
    console.log(`${count} nodes: first draw (median of ${opens} opens) canvas ${c.first.toFixed(1)} ms / floor ${b.first.toFixed(1)} ms = ${(c.first / b.first).toFixed(2)}×; ` +
      `edit (median of ${rounds}) canvas ${c.edit.toFixed(1)} ms / floor ${b.edit.toFixed(1)} ms = ${(c.edit / b.edit).toFixed(2)}×`);
  }
})();
