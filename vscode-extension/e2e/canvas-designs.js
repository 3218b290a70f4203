#!/usr/bin/env node
// The built canvas (dist/webview/canvas.{js,css}) in headless Chromium with a stand-in host,
// on designs no one planned for and in VS Code's three kinds of theme (issue 30): ids that
// are Object.prototype names, repeated ids, a 3,000-node chain; review-flow during a run
// (a running step, durations, a parked approval), with a node selected and banners up.
// Screenshots go to artifacts/vscode/canvas-*.png; prints one line per check, exits 1 on
// a failure.
//
//   node canvas-designs.js [--repo DIR]
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { chromium } = require('playwright-core');
const { LAUNCH_ARGS } = require('./lib/workbench');
const { option } = require('./lib/options');

const ext = path.join(__dirname, '..');
const repo = option('repo', path.join(ext, '..'));
const dist = path.join(ext, 'dist', 'webview');
const artifacts = path.join(repo, 'artifacts', 'vscode');

/** A few of VS Code's theme variables per kind of theme (its default themes' values). */
const THEMES = {
  light: { cls: 'vscode-light', vars: {
    'editor-background': '#ffffff', 'editor-foreground': '#3b3b3b', 'editorWidget-background': '#f8f8f8', 'editorWidget-border': '#c8c8c8',
    'descriptionForeground': '#616161', 'focusBorder': '#005fb8', 'button-background': '#005fb8', 'button-foreground': '#ffffff',
    'button-secondaryBackground': '#e5e5e5', 'button-secondaryForeground': '#3b3b3b', 'input-background': '#ffffff', 'input-foreground': '#3b3b3b',
    'input-border': '#cecece', 'charts-purple': '#652d90', 'charts-blue': '#1a85ff', 'charts-orange': '#d18616', 'charts-yellow': '#bf8803',
    'charts-green': '#388a34', 'terminal-ansiCyan': '#0598bc', 'editorError-foreground': '#e51400', 'editorWarning-foreground': '#bf8803',
    'testing-iconPassed': '#388a34', 'progressBar-background': '#005fb8', 'editorLineNumber-foreground': '#6e7681', 'editorWarning-background': 'rgba(191,136,3,0.12)',
    'editorHoverWidget-background': '#f8f8f8', 'editorHoverWidget-foreground': '#3b3b3b', 'editorHoverWidget-border': '#c8c8c8' } },
  dark: { cls: 'vscode-dark', vars: {
    'editor-background': '#1f1f1f', 'editor-foreground': '#cccccc', 'editorWidget-background': '#202020', 'editorWidget-border': '#454545',
    'descriptionForeground': '#9d9d9d', 'focusBorder': '#0078d4', 'button-background': '#0078d4', 'button-foreground': '#ffffff',
    'button-secondaryBackground': '#313131', 'button-secondaryForeground': '#cccccc', 'input-background': '#313131', 'input-foreground': '#cccccc',
    'charts-purple': '#b180d7', 'charts-blue': '#3794ff', 'charts-orange': '#d18616', 'charts-yellow': '#cca700', 'charts-green': '#89d185',
    'terminal-ansiCyan': '#11a8cd', 'editorError-foreground': '#f14c4c', 'editorWarning-foreground': '#cca700', 'testing-iconPassed': '#73c991',
    'progressBar-background': '#0078d4', 'editorLineNumber-foreground': '#6e7681' } },
  hc: { cls: 'vscode-high-contrast', vars: {
    'editor-background': '#000000', 'editor-foreground': '#ffffff', 'editorWidget-background': '#0c141f', 'editorWidget-border': '#6fc3df',
    'contrastBorder': '#6fc3df', 'descriptionForeground': '#ffffff', 'focusBorder': '#f38518', 'button-background': '#000000', 'button-foreground': '#ffffff',
    'button-border': '#6fc3df', 'button-secondaryBackground': '#000000', 'button-secondaryForeground': '#ffffff', 'input-background': '#000000', 'input-foreground': '#ffffff',
    'input-border': '#6fc3df', 'charts-purple': '#b180d7', 'charts-blue': '#3794ff', 'charts-orange': '#d18616', 'charts-yellow': '#ffff00',
    'charts-green': '#89d185', 'terminal-ansiCyan': '#00ffff', 'editorError-foreground': '#f48771', 'editorWarning-foreground': '#ffd370',
    'testing-iconPassed': '#73c991', 'progressBar-background': '#6fc3df', 'editorLineNumber-foreground': '#ffffff' } },
};

function page(theme) {
  const { cls, vars } = THEMES[theme];
  const css = Object.entries(vars).map(([k, v]) => `--vscode-${k}: ${v};`).join(' ');
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="canvas.css">
<style>html, body, #root { height: 100%; margin: 0; } body { ${css} --vscode-font-family: 'DejaVu Sans', sans-serif; --vscode-font-size: 13px; }</style></head>
<body class="${cls}"><div id="root"></div><script>
window.sent = [];
function acquireVsCodeApi() { return { postMessage(m) { window.sent.push(m); if (m.type === 'ready') window.ready = true; }, setState() {} }; }
window.send = (m) => window.postMessage(m, '*');
</script><script src="canvas.js"></script></body></html>`;
}

/** The server's own hwf.graph of a design text (graph_view, the .venv's Python). */
function serverGraph(text) {
  const py = path.join(repo, '.venv', 'bin', 'python');
  const script = `import json, sys
from hwf_lsp.analysis.findings import check_document
from hwf_lsp.analysis.graph_view import graph_answer, lsp_ranges
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.jsontext.positions import LineIndex
text = sys.stdin.read(); doc = parse(text)
print(json.dumps(graph_answer('file:///w/d.hwf.json', 1, doc, check_document(doc), lsp_ranges(LineIndex(text), 'utf-16'))))`;
  return JSON.parse(execFileSync(py, ['-c', script], { input: text, encoding: 'utf8', maxBuffer: 1 << 28 }));
}

function chainText(count) {
  const nodes = [{ id: 'start', type: 'trigger', title: 'Start' }];
  for (let i = 1; i < count; i += 1) nodes.push({ id: `s${i}`, type: 'agent', prompt: `Step ${i}`, after: [i === 1 ? 'start' : `s${i - 1}`] });
  return JSON.stringify({ name: 'chain', nodes });
}

const results = [];
async function check(name, fn) {
  try {
    const detail = await fn();
    results.push(true);
    console.log(`ok   ${name}${detail ? `\n     ${detail}` : ''}`);
  } catch (error) {
    results.push(false);
    console.log(`FAIL ${name}\n     ${String(error && error.stack || error).split('\n').join('\n     ')}`);
  }
}

(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hwf-canvas-designs-'));
  for (const f of ['canvas.js', 'canvas.css']) fs.copyFileSync(path.join(dist, f), path.join(dir, f));
  for (const theme of Object.keys(THEMES)) fs.writeFileSync(path.join(dir, `${theme}.html`), page(theme));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: [...LAUNCH_ARGS, '--allow-file-access-from-files'] });
  const shot = (name) => path.join(artifacts, `${name}.png`);
  const open = async (theme, graph, size = { width: 1100, height: 760 }) => {
    const p = await browser.newPage({ viewport: size });
    const errors = [];
    p.on('pageerror', (e) => errors.push(String(e)));
    await p.goto(`file://${dir}/${theme}.html`);
    await p.waitForFunction(() => window.ready === true);
    await p.evaluate((g) => window.send({ type: 'graph', graph: g, seq: 1 }), graph);
    return { p, errors };
  };
  try {
    const hostile = serverGraph(JSON.stringify({ name: 'hostile', nodes: [
      { id: 'constructor', type: 'trigger', title: 'constructor' },
      { id: '__proto__', type: 'agent', prompt: 'p', after: ['constructor'] },
      { id: 'toString', type: 'agent', prompt: 'p', after: ['__proto__'] },
      { id: 'valueOf', type: 'output', deliver: 'notification', after: ['toString', 'constructor'] },
    ] }, null, 2));
    await check('ids constructor, __proto__, toString, valueOf: 4 nodes and 4 edges drawn, no page error', async () => {
      const { p, errors } = await open('dark', hostile);
      await p.waitForFunction(() => document.querySelectorAll('.react-flow__node').length === 4, null, { timeout: 10000 });
      await p.waitForTimeout(300);
      const edges = await p.locator('.react-flow__edge').count();
      const ids = await p.locator('.hwf-node').evaluateAll((els) => els.map((e) => e.getAttribute('data-node-id')));
      await p.screenshot({ path: shot('canvas-30-hostile-ids') });
      // and a rename back to a plain id redraws (the canvas is not left blank)
      const renamed = JSON.parse(JSON.stringify(hostile).split('"__proto__"').join('"proto"'));
      await p.evaluate((g) => window.send({ type: 'graph', graph: g, seq: 2 }), renamed);
      await p.waitForSelector('.react-flow__node[data-id="proto"]', { timeout: 5000 });
      await p.close();
      if (edges !== 4 || errors.length) throw new Error(`${edges} edges; errors: ${errors.join('; ')}`);
      return `ids drawn: ${ids.join(', ')}; renamed __proto__ → proto redraws`;
    });

    await check('a repeated id next to a real "a#2": three nodes drawn', async () => {
      const g = { uri: 'file:///w/d.hwf.json', version: 1, stale: false, name: 'dup', defects: [],
        nodes: [{ id: 'a', kind: 'trigger' }, { id: 'a', kind: 'agent', defects: [{ message: 'duplicate id a' }] }, { id: 'a#2', kind: 'agent' }], edges: [{ from: 'a', to: 'a#2' }] };
      const { p, errors } = await open('dark', g);
      await p.waitForFunction(() => document.querySelectorAll('.react-flow__node').length === 3, null, { timeout: 10000 });
      const keys = await p.locator('.react-flow__node').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
      await p.close();
      if (errors.length) throw new Error(errors.join('; '));
      return `keys ${keys.join(', ')}`;
    });

    await check('a 3,000-node chain renders (the nodes in view), the count says 3000', async () => {
      const t0 = Date.now();
      const g = serverGraph(chainText(3000));
      const tGraph = Date.now() - t0;
      const t1 = Date.now();
      const { p, errors } = await open('dark', g);
      await p.waitForFunction(() => /3000 nodes/.test(document.querySelector('.hwf-counts')?.textContent ?? '') && document.querySelectorAll('.react-flow__node').length > 0, null, { timeout: 60000 });
      const ms = Date.now() - t1;
      await p.waitForTimeout(300);
      const inView = await p.locator('.react-flow__node').count();
      await p.screenshot({ path: shot('canvas-31-chain-3000') });
      await p.close();
      if (errors.length) throw new Error(errors.join('; '));
      return `server graph ${tGraph} ms; on screen ${ms} ms after the message; ${inView} nodes rendered (only those in view)`;
    });

    const review = serverGraph(fs.readFileSync(path.join(repo, 'examples', 'review-flow.hwf.json'), 'utf8'));
    const at = (s) => `2026-12-02T10:00:${String(s).padStart(2, '0')}Z`;
    const runMsg = {
      type: 'run', seq: 1,
      run: { run_id: 'r-42', name: 'review-flow', status: 'running', step_states: [] },
      // the steps as runModel.stepsOfRun renders the server's run facts: its words, labels, times
      steps: [
        { id: 'draft', kind: 'agent', state: 'done', label: '✓ done', times: `started ${at(0)}, ended ${at(4)} (took 4.00 s)`, duration: '4.00 s', attempts: [], preview: 'Features: …', detail: 'Features:\n- a\n- b\nFixes:\n- c' },
        { id: 'review', kind: 'agent', state: 'done', label: '✓ done', times: `started ${at(4)}, ended ${at(16)} (took 12 s)`, duration: '12 s', attempts: [], preview: '{"score": 8}', detail: '{"verdict": "approve", "score": 8}' },
        { id: 'good-enough', kind: 'condition', state: 'done', label: '✓ done', times: `started ${at(16)}, ended ${at(16)} (took 0.00 s)`, duration: '0.00 s', attempts: [], preview: 'true', detail: 'true' },
        { id: 'sign-off', kind: 'approval', state: 'running', label: '⟳ running', times: `started ${at(16)}`, duration: '', attempts: [], preview: 'running', detail: '' },
        { id: 'publish', kind: 'output', state: 'not run', label: '○ not run', times: '', duration: '', attempts: [], preview: 'not run yet', detail: 'Posted to #reviews: the release notes for 2.4 are out.\n(and a long second line to see the card wrap)' },
      ],
    };
    for (const theme of Object.keys(THEMES)) {
      await check(`review-flow during a run, ${theme} theme: kind colours kept, running animates, durations, primary buttons`, async () => {
        const { p, errors } = await open(theme, review, { width: 1200, height: 720 });
        await p.waitForFunction(() => document.querySelectorAll('.react-flow__node').length === 7, null, { timeout: 10000 });
        await p.evaluate((m) => window.send(m), runMsg);
        await p.waitForSelector('.hwf-badge-running');
        await p.waitForTimeout(300);
        await p.screenshot({ path: shot(`canvas-32-run-${theme}`) });
        const facts = await p.evaluate(() => {
          const node = (id) => document.querySelector(`.hwf-node[data-node-id="${id}"]`);
          const left = (id) => getComputedStyle(node(id)).borderLeftColor;
          const title = node('review').querySelector('.hwf-node-title');
          const start = document.querySelector('button.hwf-start-run');
          return {
            condition: left('good-enough'), approval: left('sign-off'), doneAgent: left('draft'), agent: left('review'),
            animation: getComputedStyle(node('sign-off')).animationName + '/' + getComputedStyle(node('sign-off')).animationName,
            runningAnim: getComputedStyle(document.querySelector('.hwf-state-running')).animationName,
            truncated: title.scrollWidth > title.clientWidth + 1 || title.scrollHeight > title.clientHeight + 1,
            startBg: getComputedStyle(start).backgroundColor + ' ' + getComputedStyle(start).fontWeight, addBg: getComputedStyle(document.querySelector('button.hwf-add')).backgroundColor + ' ' + getComputedStyle(document.querySelector('button.hwf-add')).fontWeight,
            durations: [...document.querySelectorAll('.hwf-duration')].map((d) => d.textContent),
          };
        });
        await p.close();
        if (errors.length) throw new Error(errors.join('; '));
        if (facts.condition === facts.approval) throw new Error(`condition and approval share ${facts.condition}`);
        if (facts.runningAnim === 'none') throw new Error('running does not animate');
        if (facts.truncated) throw new Error('the title is cut');
        if (facts.startBg === facts.addBg) throw new Error('Start run is styled like any button');
        if (facts.durations.join() !== '4.00 s,12 s,0.00 s') throw new Error(`durations ${facts.durations}`);
        return JSON.stringify(facts);
      });
    }

    await check('selecting a node: the toolbar stays one row, the inspector lists the kind\'s fields; banners float over the graph', async () => {
      const withDefects = { ...review, defects: [{ message: 'a graph-level problem, shown as a banner' }] };
      const { p, errors } = await open('light', withDefects, { width: 1100, height: 720 });
      await p.waitForFunction(() => document.querySelectorAll('.react-flow__node').length === 7, null, { timeout: 10000 });
      const flowTop = await p.evaluate(() => document.querySelector('.hwf-flow').getBoundingClientRect().top);
      const barBefore = await p.evaluate(() => document.querySelector('.hwf-toolbar').getBoundingClientRect().height);
      await p.locator('.react-flow__node[data-id="sign-off"] .hwf-node-title').click();
      await p.evaluate(() => window.send({ type: 'notice', text: 'Connecting publish → draft would make a cycle: draft already runs after publish' }));
      await p.waitForSelector('.hwf-side');
      await p.waitForTimeout(300);
      const barAfter = await p.evaluate(() => document.querySelector('.hwf-toolbar').getBoundingClientRect().height);
      const flowTopAfter = await p.evaluate(() => document.querySelector('.hwf-flow').getBoundingClientRect().top);
      const fields = await p.locator('.hwf-side .hwf-field').evaluateAll((els) => els.map((e) => e.getAttribute('data-field')));
      const kinds = await p.locator('.hwf-side .hwf-field-input').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-field')}:${e.tagName.toLowerCase()}${e.type ? `/${e.type}` : ''}`));
      await p.screenshot({ path: shot('canvas-33-selected-inspector-light') });
      await p.locator('.hwf-side [data-field="timeout_minutes"] input').fill('99999');
      const rangeError = await p.locator('.hwf-side .hwf-field-error').innerText();
      await p.locator('.hwf-side [data-field="timeout_minutes"] input').fill('60');
      await p.locator('.hwf-side button.hwf-save-field[data-field="timeout_minutes"]').click();
      await p.locator('.hwf-side select[data-field="on_timeout"]').selectOption('reject'); // a choice saves at once
      await p.locator('.hwf-side textarea[data-field="options"]').fill('ship\nhold');
      await p.locator('.hwf-side button.hwf-save-field[data-field="options"]').click();
      const edits = await p.evaluate(() => window.sent.filter((m) => m.type === 'edit'));
      await p.close();
      if (errors.length) throw new Error(errors.join('; '));
      if (barAfter !== barBefore) throw new Error(`the toolbar grew from ${barBefore} to ${barAfter} px`);
      if (flowTopAfter !== flowTop) throw new Error(`the graph moved down from ${flowTop} to ${flowTopAfter}`);
      if (fields.join() !== 'title,question,options,timeout_minutes,on_timeout') throw new Error(`fields ${fields}`);
      const expected = [['timeout_minutes', 60], ['on_timeout', 'reject'], ['options', ['ship', 'hold']]];
      if (JSON.stringify(edits.map((e) => [e.field, e.value])) !== JSON.stringify(expected)) throw new Error(`edits ${JSON.stringify(edits)}`);
      return `toolbar ${barBefore} px before and after; inputs ${kinds.join(', ')}; "${rangeError}"; setField sent ${JSON.stringify(expected)}`;
    });

    await check('from the keyboard: Tab to a node, Enter opens its inspector, Enter saves a field, arrows move it, Ctrl+Z is the document\'s undo', async () => {
      const { p, errors } = await open('dark', review, { width: 1100, height: 720 });
      await p.waitForFunction(() => document.querySelectorAll('.react-flow__node').length === 7, null, { timeout: 10000 });
      await p.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
      let reached = '';
      for (let i = 0; i < 40 && reached !== 'draft'; i += 1) {
        await p.keyboard.press('Tab');
        reached = await p.evaluate(() => document.activeElement?.getAttribute('data-id') ?? '');
      }
      if (reached !== 'draft') throw new Error('Tab never reached the draft node');
      await p.keyboard.press('Enter');
      await p.waitForSelector('.hwf-side');
      const before = await p.evaluate(() => document.querySelector('.react-flow__node[data-id="draft"]').style.transform);
      await p.keyboard.press('ArrowRight');
      await p.keyboard.press('ArrowRight');
      await p.waitForTimeout(200);
      const moved = await p.evaluate(() => document.querySelector('.react-flow__node[data-id="draft"]').style.transform);
      await p.keyboard.press('Control+z');
      await p.locator('.hwf-side input[data-field="retries"]').focus();
      await p.keyboard.press('Control+a');
      await p.keyboard.type('2');
      await p.keyboard.press('Enter');
      await p.waitForTimeout(700);
      const sent = await p.evaluate(() => window.sent.filter((m) => ['edit', 'undo', 'positions'].includes(m.type)).map((m) => m.type === 'edit' ? `${m.edit} ${m.field}=${JSON.stringify(m.value)}` : m.type));
      await p.close();
      if (errors.length) throw new Error(errors.join('; '));
      if (before === moved) throw new Error('the arrow keys did not move the node');
      if (!sent.includes('undo') || !sent.includes('setField retries=2') || !sent.includes('positions')) throw new Error(`sent ${sent}`);
      return `node ${before} → ${moved}; sent ${sent.join(', ')}`;
    });

    await check('the hover card of a bottom node is inside the window', async () => {
      const { p } = await open('dark', review, { width: 1000, height: 640 });
      await p.waitForFunction(() => document.querySelectorAll('.react-flow__node').length === 7, null, { timeout: 10000 });
      await p.evaluate((m) => window.send(m), runMsg);
      await p.waitForSelector('.hwf-badge-running');
      const bottom = await p.evaluate(() => {
        // the lowest node in view (the first view is readable, not the whole graph: issue 44)
        const inView = (n) => n.getBoundingClientRect().bottom <= innerHeight && n.getBoundingClientRect().top >= 0;
        const nodes = [...document.querySelectorAll('.hwf-node')].filter((n) => inView(n) && (n.classList.contains('hwf-state-not-run') || n.classList.contains('hwf-state-done')));
        nodes.sort((a, b) => b.getBoundingClientRect().bottom - a.getBoundingClientRect().bottom);
        return nodes[0].getAttribute('data-node-id');
      });
      await p.locator(`.hwf-node[data-node-id="${bottom}"]`).hover();
      await p.waitForSelector('.hwf-preview');
      await p.waitForTimeout(200);
      const box = await p.locator('.hwf-preview').boundingBox();
      await p.screenshot({ path: shot('canvas-34-bottom-hover') });
      await p.close();
      if (!box || box.y < 0 || box.y + box.height > 640 || box.x + box.width > 1000) throw new Error(`the card is at ${JSON.stringify(box)}`);
      return `${bottom}'s card at y ${Math.round(box.y)}–${Math.round(box.y + box.height)} of 640`;
    });

    await check('the dashboard bundle (canvas-dashboard.js, stand-in SDK): a design with __proto__ draws and the picker stays', async () => {
      const bundle = path.join(repo, 'hwf_lsp', 'hermes', 'dashboard', 'dist', 'canvas-dashboard.js');
      if (!fs.existsSync(bundle)) throw new Error('build it first: make dashboard-js');
      fs.copyFileSync(bundle, path.join(dir, 'canvas-dashboard.js'));
      fs.copyFileSync(bundle.replace(/\.js$/, '.css'), path.join(dir, 'canvas-dashboard.css'));
      const graphs = { hostile, 'review-flow': review };
      fs.writeFileSync(path.join(dir, 'dashboard.html'), `<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="canvas-dashboard.css">
<style>html, body, #root { height: 100%; margin: 0; }</style></head><body><div id="root"></div><script>
const graphs = ${JSON.stringify(graphs)};
const ref = { current: null }; const effects = [];
window.__HERMES_PLUGIN_SDK__ = {
  React: { createElement: (t, props) => ({ t, props }), useRef: () => ref, useEffect: (fn) => effects.push(fn) },
  fetchJSON: async (url) => {
    if (/\\/designs$/.test(url)) return { designs: Object.keys(graphs).map((name) => ({ name })) };
    const m = /\\/designs\\/([^/]+)\\/graph$/.exec(url);
    if (m) return graphs[decodeURIComponent(m[1])];
    if (/\\/runs/.test(url)) return { runs: [] };
    throw new Error('404: {"error": "no route"}');
  },
};
window.__HERMES_PLUGINS__ = { register(name, Tab) { Tab(); ref.current = document.getElementById('root'); effects.forEach((f) => f()); } };
</script><script src="canvas-dashboard.js"></script></body></html>`);
      const p = await browser.newPage({ viewport: { width: 1100, height: 700 } });
      const errors = [];
      p.on('pageerror', (e) => errors.push(String(e)));
      await p.goto(`file://${dir}/dashboard.html`);
      await p.waitForFunction(() => document.querySelectorAll('.react-flow__node').length === 4, null, { timeout: 15000 });
      await p.waitForTimeout(300);
      await p.screenshot({ path: shot('canvas-35-dashboard-hostile') });
      const options = await p.locator('select.hwf-design-picker option').allInnerTexts();
      await p.locator('select.hwf-design-picker').selectOption('review-flow');
      await p.waitForFunction(() => document.querySelectorAll('.react-flow__node').length === 7, null, { timeout: 15000 });
      await p.close();
      if (errors.length) throw new Error(errors.join('; '));
      return `picker: ${options.join(', ')}; hostile drew 4 nodes, then review-flow 7`;
    });
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const failed = results.filter((r) => !r).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})();
