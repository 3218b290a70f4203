#!/usr/bin/env node
// The Hermes dashboard tab in a real `hermes dashboard` (hermes-agent in .venv-hermes),
// driven by headless Chromium: a home with review-flow stored and a run parked at its
// approval, `hwf hermes install`, the Workflows tab shows the graph with the run's
// states, the approval is answered on the canvas and the run completes. Screenshots in
// artifacts/dashboard/. Build the bundle first (`make dashboard-js`).
//
//   node dashboard.js [--repo DIR] [--keep]
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawn, spawnSync } = require('node:child_process');
const { chromium } = require('playwright-core');
const { freePort } = require('./lib/codeServer');
const { waitFor, LAUNCH_ARGS } = require('./lib/workbench');
const { click } = require('./lib/click');
const { option } = require('./lib/options');

const repo = path.resolve(option('repo', path.join(__dirname, '..', '..')));
const bin = path.join(repo, '.venv-hermes', 'bin');
const artifacts = path.join(repo, 'artifacts', 'dashboard');
const results = [];

async function step(name, fn) {
  try {
    const detail = await fn();
    results.push(true);
    console.log(`ok   ${name}${detail ? `\n     ${detail}` : ''}`);
  } catch (error) {
    results.push(false);
    console.log(`FAIL ${name}\n     ${String(error && error.stack || error).split('\n').join('\n     ')}`);
  }
}

async function main() {
  fs.mkdirSync(artifacts, { recursive: true });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hwf-dashboard-e2e-'));
  const home = path.join(root, 'hermes-home');
  const env = { ...process.env, HERMES_HOME: home, HOME: root };
  fs.mkdirSync(path.join(home, 'workflow-designs'), { recursive: true });
  fs.copyFileSync(path.join(repo, 'examples', 'review-flow.hwf.json'), path.join(home, 'workflow-designs', 'review-flow.json'));
  const agent = `python3 ${path.join(repo, 'examples', 'agents', 'echo_agent.py')}`;
  // Exit 0 only when the run completed: here it parks at the approval.
  const out = spawnSync(path.join(bin, 'hwf'), ['run', 'review-flow', '--agent-command', agent, '--hermes-home', home], { env, encoding: 'utf8' }).stdout;
  const runId = /run ([a-f0-9]+) of review-flow/.exec(out)?.[1];
  execFileSync(path.join(bin, 'hwf'), ['hermes', 'install', '--home', home], { env, encoding: 'utf8' });
  const port = await freePort();
  const server = spawn(path.join(bin, 'hermes'), ['dashboard', '--host', '127.0.0.1', '--port', String(port), '--no-open', '--skip-build'], {
    env, cwd: root, stdio: ['ignore', fs.openSync(path.join(root, 'dashboard.log'), 'a'), fs.openSync(path.join(root, 'dashboard.log'), 'a')], detached: true,
  });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: LAUNCH_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await waitFor('the dashboard to answer', async () => {
      const r = await page.goto(`http://127.0.0.1:${port}/workflows`).catch(() => undefined);
      return r && r.ok();
    }, { timeout: 90000, interval: 1000 });
    await step('dashboard: the Workflows tab draws review-flow with its run parked at the approval', async () => {
      const signOff = page.locator('.react-flow__node[data-id="sign-off"]');
      await waitFor('the graph', async () => (await page.locator('.react-flow__node').count()) === 7, { timeout: 60000 });
      await waitFor('sign-off waiting', async () => (await signOff.locator('.hwf-badge-waiting').count()) === 1, { timeout: 30000 });
      const edges = await page.locator('.react-flow__edge').count();
      await page.waitForTimeout(500);
      await page.screenshot({ path: path.join(artifacts, '01-dashboard-parked.png') });
      const editing = await page.locator('button.hwf-add, button.hwf-start-run, button.hwf-run-here').count();
      if (editing) throw new Error(`${editing} edit or run buttons in the read-only tab`);
      return `7 nodes, ${edges} edges; run ${runId} parked at sign-off; no edit buttons`;
    });
    await step('dashboard: answering on the canvas completes the run', async () => {
      await click(page.locator('.react-flow__node[data-id="sign-off"] button.hwf-answer', { hasText: 'approve' }));
      await waitFor('the run completed', async () => /completed/.test(await page.locator('.hwf-run-status').innerText()), { timeout: 30000 });
      await page.waitForTimeout(500);
      await page.screenshot({ path: path.join(artifacts, '02-dashboard-completed.png') });
      const run = JSON.parse(fs.readFileSync(path.join(home, 'workflow-runs', `${runId}.json`), 'utf8'));
      if (run.status !== 'completed' || run.answers['sign-off'] !== 'approve') throw new Error(`run file: ${run.status} ${JSON.stringify(run.answers)}`);
      return `run ${runId}: completed, answers ${JSON.stringify(run.answers)}${errors.length ? `; page errors: ${errors.join('; ')}` : ''}`;
    });
  } finally {
    await browser.close();
    try { process.kill(-server.pid, 'SIGTERM'); } catch { /* gone */ }
    if (!process.argv.includes('--keep')) fs.rmSync(root, { recursive: true, force: true });
  }
  const passed = results.filter(Boolean).length;
  console.log(`${passed} passed, ${results.length - passed} failed`);
  return results.every(Boolean) ? 0 : 1;
}

main().then((code) => process.exit(code), (error) => {
  console.error(error);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
