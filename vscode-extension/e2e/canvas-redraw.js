#!/usr/bin/env node
// The canvas's own share of a redraw: the built webview (dist/webview/canvas.js) in
// headless Chromium with a stand-in host, a 50-node design, one prompt changed per
// message; time from the graph message to the painted frame (the canvas's "drawn").
// The e2e (canvas.js) measures the whole path in VS Code: edit → server → canvas.
//
//   node canvas-redraw.js [--rounds N]
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { LAUNCH_ARGS } = require('./lib/workbench');
const { option } = require('./lib/options');

const dist = path.join(__dirname, '..', 'dist', 'webview');
const rounds = Number(option('rounds', '30'));

const PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="canvas.css"></head>
<body class="vscode-dark"><div id="root"></div><script>
window.times = []; let t0 = 0;
function graph(v) {
  const range = (l) => ({ start: { line: l, character: 4 }, end: { line: l + 8, character: 5 } });
  const nodes = [{ id: 'start', kind: 'trigger', title: 'Start', plan_index: null, main: { field: 'title', value: 'Start' }, range: range(3), defects: [] }];
  const edges = [];
  for (let i = 1; i < 50; i++) {
    nodes.push({ id: 'step-' + i, kind: 'agent', title: 'Step ' + i, plan_index: i, range: range(4 + 9 * i), defects: [],
      main: { field: 'prompt', value: 'Do step ' + i + '.' + (i === 25 ? ' edit ' + v : '') } });
    edges.push({ from: i === 1 ? 'start' : 'step-' + (i - 1), to: 'step-' + i });
  }
  return { uri: 'file:///fifty.hwf.json', version: v, stale: false, name: 'fifty', nodes, edges, defects: [] };
}
window.send = (v) => { t0 = performance.now(); window.postMessage({ type: 'graph', graph: graph(v), seq: v }, '*'); };
function acquireVsCodeApi() { return { postMessage(m) {
  if (m.type === 'drawn' && m.seq > 1) window.times.push(performance.now() - t0);
  if (m.type === 'ready') setTimeout(() => window.send(1), 0);
} }; }
</script><script src="canvas.js"></script></body></html>`;

(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hwf-canvas-redraw-'));
  for (const f of ['canvas.js', 'canvas.css']) fs.copyFileSync(path.join(dist, f), path.join(dir, f));
  fs.writeFileSync(path.join(dir, 'index.html'), PAGE);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: [...LAUNCH_ARGS, '--allow-file-access-from-files'] });
  try {
    const page = await browser.newPage({ viewport: { width: 700, height: 800 } });
    await page.goto(`file://${dir}/index.html`);
    await page.waitForFunction(() => document.querySelectorAll('.react-flow__node').length === 50, null, { timeout: 30000 });
    for (let v = 2; v < rounds + 2; v++) {
      await page.evaluate((n) => window.send(n), v);
      await page.waitForTimeout(150);
    }
    const t = (await page.evaluate(() => window.times)).sort((a, b) => a - b);
    const at = (p) => t[Math.min(t.length - 1, Math.floor(p * t.length))].toFixed(1);
    console.log(`canvas redraw, 50 nodes, ${t.length} edits: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`);
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
})();
