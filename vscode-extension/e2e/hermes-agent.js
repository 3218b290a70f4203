// The Hermes agent choice of the e2e (issue 31, item 3): in a window whose PATH holds the
// real `hermes` (.venv-hermes/bin), "Hermes Workflow: Choose Agent…" offers "Your Hermes
// model" with the path the extension found; picking it writes hwf.agent.command, and a run
// of a design with an agent step completes, the step performed by `hermes workflow agent`
// through Hermes' PluginLlm with the model of a temp HERMES_HOME (a fake OpenAI-compatible
// server on 127.0.0.1, lib/fakeModel.js, whose log shows the step's prompt). Then, with no
// agent command set, a run parked at its agent step offers the Hermes model; taking it
// resumes that run to completed.
//
// Each step opens a window of its own (own folder, profile, PATH and HERMES_HOME) and
// closes it: the choice is written to that folder's settings, so the shared workspace's
// echo agent stays as it is, and each step runs alone with --only.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { waitFor } = require('./lib/workbench');
const { newProfile } = require('./lib/workspace');
const { click } = require('./lib/click');
const { startFakeModel } = require('./lib/fakeModel');

const PROMPT = 'List three risks of shipping on a Friday, one line each.';
const ANSWER = 'Tired people; no one on call; the weekend hides the bugs.';
const DESIGN = {
  name: 'ask-hermes',
  nodes: [
    { id: 'start', type: 'trigger', title: 'Manual start' },
    { id: 'risks', type: 'agent', title: 'Name the risks', prompt: PROMPT, after: ['start'] },
    { id: 'show', type: 'output', title: 'Show them', deliver: 'notification', after: ['risks'] },
  ],
};

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * A Hermes home whose model is the fake server (provider custom) and whose plugins
 * include ours (`hermes workflow agent` is the plugin's CLI), named by the profile's
 * hwf.hermesHome; and a workspace with one design and no agent command.
 */
function prepareHermesWorld(world, model, name) {
  const root = path.join(world.root, `hermes-agent-${name}`);
  const home = path.join(root, 'hermes-home');
  const folder = path.join(root, 'workspace');
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, 'config.yaml'), JSON.stringify({
    model: { provider: 'custom', base_url: model.baseUrl, default: model.model, api_key: 'sk-offline' },
    plugins: { enabled: ['visual-workflow'] },
  }));
  writeJson(path.join(folder, 'ask-hermes.hwf.json'), DESIGN);
  writeJson(path.join(folder, '.vscode', 'settings.json'), { 'hwf.server.pythonPath': world.serverPython });
  const profile = newProfile(root, 'user-data', { 'hwf.hermesHome': home });
  return { root, home, folder, profile };
}

function runFilesOf(home) {
  const dir = path.join(home, 'workflow-runs');
  return fs.existsSync(dir)
    ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')))
    : [];
}

/** The palette command, again if the palette had not listed it yet (a first palette on a loaded box). */
async function runCommandOnceListed(wb, title) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await wb.runCommand(title);
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

/** The run of `home` with `runId`, checked: completed, the step's output the model's answer. */
function completedRun(home, runId) {
  const run = runFilesOf(home).find((r) => r.run_id === runId);
  if (!run || run.status !== 'completed' || run.outputs.risks !== ANSWER) {
    throw new Error(`run file says ${JSON.stringify(run && { status: run.status, outputs: run.outputs, error: run.error })}`);
  }
  return run;
}

async function hermesAgentSteps({ step, repo, world, shot, openSession }) {
  const bin = path.join(repo, '.venv-hermes', 'bin');
  const hermes = path.join(bin, 'hermes');
  const hermesArgv = JSON.stringify([hermes, 'workflow', 'agent']);
  const modelLog = path.join(repo, 'artifacts', 'vscode', 'hermes-agent-model-requests.jsonl');
  // The window of the step under way; closed after the step, not inside it, so a failed
  // step's screenshot is of this window.
  let open;

  /** The fake model, a Hermes home on it, a workspace without agent command, and a window on it. */
  async function openHermesWindow(name) {
    if (!fs.existsSync(hermes)) {
      throw new Error(`${hermes} is missing: build the Hermes venv first (make .venv-hermes/.installed)`);
    }
    const model = await startFakeModel({ reply: () => ANSWER, logPath: modelLog });
    open = { model };
    const hw = prepareHermesWorld(world, model, name);
    // The extension looks for `hermes` on its host's PATH: .venv-hermes/bin goes last, so
    // nothing else of that venv (its python3) shadows what the machine has. VSCODE_CLI=1:
    // the extension host keeps this environment (it would otherwise read a login shell's).
    // $HERMES_HOME stays the shared e2e home (no model configured): the fake model is
    // reached only through the profile's hwf.hermesHome, the home agent commands are given.
    open.session = await openSession(world, hw.profile, {
      folder: hw.folder,
      env: { PATH: `${process.env.PATH}${path.delimiter}${bin}`, VSCODE_CLI: '1' },
    });
    const { wb } = open.session;
    await wb.openFile('ask-hermes.hwf.json');
    await waitFor('the language server (the hwf status item)', async () => /hwf:/.test(await wb.statusBarText()), { timeout: 60000 });
    return { ...open.session, hw, model };
  }

  async function closeWindow() {
    await open?.session?.close();
    await open?.model?.close();
    open = undefined;
  }

  /** The agent command the window wrote to its workspace settings. */
  const writtenCommand = (hw) => waitFor('hwf.agent.command in the workspace settings', () => {
    const value = JSON.parse(fs.readFileSync(path.join(hw.folder, '.vscode', 'settings.json'), 'utf8'))['hwf.agent.command'];
    return Array.isArray(value) && value.length ? JSON.stringify(value) : false;
  }, { timeout: 15000 });

  /** Requests that reached the model with the step's prompt: exactly one, else throws. */
  const promptRequests = (model) => {
    const asked = model.requests.filter((r) => JSON.stringify(r.messages ?? []).includes(PROMPT));
    if (asked.length !== 1) {
      throw new Error(`${asked.length} request(s) with the step's prompt reached the model (of ${model.requests.length})`);
    }
    return `the model got the prompt (${model.requests.length} request(s), model ${asked[0].model})`;
  };

  fs.rmSync(modelLog, { force: true });

  await step('hermes agent: "Choose Agent…" finds hermes on PATH; with "Your Hermes model" a run\'s agent step is performed by the fake model', async () => {
    const { wb, page, hw, model } = await openHermesWindow('choose');
    await runCommandOnceListed(wb, 'Hermes Workflow: Choose Agent…');
    const rows = await waitFor('the agent choices with "Your Hermes model" and its path', async () => {
      const shown = await wb.quickPickRows();
      return shown.some((r) => r.includes('Your Hermes model') && r.includes(`${hermes} workflow agent`)) &&
        shown.some((r) => r.includes('Respond by hand')) && shown.some((r) => r.includes('Another command')) ? shown : false;
    }, { timeout: 20000 });
    await wb.screenshot(shot('16-hermes-agent-choice'));
    await wb.pickQuickItem('Your Hermes model');
    const written = await writtenCommand(hw);
    if (written !== hermesArgv) {
      throw new Error(`hwf.agent.command = ${written}`);
    }

    await wb.openFile('ask-hermes.hwf.json');
    await runCommandOnceListed(wb, 'Hermes Workflow: Start Run');
    // Each attempt starts `hermes` (its CLI and plugin discovery: seconds on a loaded box).
    const row = await wb.waitForRun('ask-hermes', 'completed', 180000);
    await wb.expandRun(row);
    await waitFor('the agent step done with the model\'s answer', async () => /Tired people/.test(await wb.runsViewText()));
    await page.mouse.move(700, 450);
    await wb.screenshot(shot('17-hermes-agent-run-completed'));
    const run = completedRun(hw.home, await wb.runIdOf(row));
    const asked = promptRequests(model);
    await wb.runCommand('Notifications: Clear All Notifications');
    return `quick pick: ${rows.map((r) => r.replace(/\s+/g, ' ')).join(' | ')}; hwf.agent.command = ${written}; ` +
      `run ${run.run_id} completed, risks = ${JSON.stringify(run.outputs.risks)}; ${asked}`;
  });
  await closeWindow();

  await step('hermes agent: with no agent command a run parked at its agent step offers the Hermes model; taking it completes that run', async () => {
    const { wb, page, hw, model } = await openHermesWindow('offer');
    await runCommandOnceListed(wb, 'Hermes Workflow: Start Run');
    const parked = await wb.runIdOf(await wb.waitForRun('ask-hermes', 'awaiting agent', 60000));
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'Perform agent steps with your Hermes model' }).first();
    await waitFor('the offer of the Hermes model', () => toast.isVisible(), { timeout: 20000 });
    const offer = (await toast.innerText()).replace(/\s+/g, ' ');
    await wb.screenshot(shot('18-hermes-agent-offer'));
    await click(toast.locator('.monaco-button', { hasText: 'Use my Hermes model' }));
    const written = await writtenCommand(hw);
    if (written !== hermesArgv) {
      throw new Error(`hwf.agent.command = ${written}`);
    }
    const row = await wb.waitForRun('ask-hermes', 'completed', 180000, parked);
    await wb.expandRun(row);
    await waitFor('the agent step done with the model\'s answer', async () => /Tired people/.test(await wb.runsViewText()));
    await page.mouse.move(700, 450);
    await wb.screenshot(shot('19-hermes-agent-offer-completed'));
    const run = completedRun(hw.home, parked);
    const runs = runFilesOf(hw.home).length;
    if (runs !== 1) {
      throw new Error(`${runs} run files: the parked run should have been resumed, not a new one started`);
    }
    const asked = promptRequests(model);
    await wb.runCommand('Notifications: Clear All Notifications');
    return `offer: "${offer}"; hwf.agent.command = ${written}; run ${run.run_id} resumed to completed; ${asked}`;
  });
  await closeWindow();
}

module.exports = { hermesAgentSteps };
