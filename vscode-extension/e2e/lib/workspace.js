// The throwaway world of one test run: a copy of examples/ as the workspace, its
// settings, an empty HERMES_HOME, a fresh VS Code profile.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** A design for the completion check: the cursor goes between the quotes of "type". */
const COMPLETION_DESIGN = `{
  "name": "completion-check",
  "nodes": [
    {"id": "start", "type": "trigger"},
    {"id": "next", "type": "", "after": ["start"]}
  ]
}
`;

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function prepareWorkspace({ repo, python }) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hwf-vscode-e2e-'));
  const folder = path.join(root, 'workspace');
  fs.cpSync(path.join(repo, 'examples'), folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'completion-check.hwf.json'), COMPLETION_DESIGN);
  writeJson(path.join(folder, '.vscode', 'settings.json'), {
    'hwf.server.pythonPath': python,
    'hwf.agent.command': ['python3', path.join(repo, 'examples', 'agents', 'echo_agent.py')],
    'hwf.trace.server': 'messages',
  });
  const hermesHome = path.join(root, 'hermes-home');
  fs.mkdirSync(hermesHome, { recursive: true });
  return {
    root,
    folder,
    userDataDir: newProfile(root, 'user-data'),
    extensionsDir: path.join(root, 'extensions'),
    hermesHome,
    logFile: path.join(root, 'code-server.log'),
    completionDesign: COMPLETION_DESIGN,
  };
}

/** A fresh VS Code profile (user data dir) with quiet defaults plus `settings`. */
function newProfile(root, name, settings = {}) {
  const userDataDir = path.join(root, name);
  writeJson(path.join(userDataDir, 'User', 'settings.json'), {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.colorTheme': 'Default Dark Modern',
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.ignoreRecommendations': true,
    'editor.minimap.enabled': false,
    'json.schemaDownload.enable': false,
    'chat.commandCenter.enabled': false,
    'window.commandCenter': false,
    'workbench.layoutControl.enabled': false,
    ...settings,
  });
  return userDataDir;
}

/** Our output channel's logs and the extension host logs of every profile under `root`. */
function extensionHostLogs(root) {
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(full);
      } else if (/remoteexthost\.log$|Hermes Workflow\.log$/.test(full)) {
        found.push(full);
      }
    }
  };
  walk(root);
  return found;
}

/**
 * Modules a hostile repository plants for Python to import from the current
 * directory, each writing a marker file when imported (issue 13 item 1).
 */
const BAIT = ['hwf_lsp/__init__.py', 'json.py', 'pygls/__init__.py', 'lsprotocol/__init__.py', 'asyncio/__init__.py',
  'logging/__init__.py', 'argparse.py'];

/**
 * A cloned repository that tries to run its code when opened: the bait modules, a
 * fake interpreter at .venv/bin/python, workspace settings pointing the server at
 * it, and a design with one defect. Markers land in `markers` (outside the repo).
 */
function prepareHostileRepository(root) {
  const folder = path.join(root, 'hostile-repo');
  const markers = path.join(root, 'hostile-markers');
  fs.mkdirSync(markers, { recursive: true });
  for (const name of BAIT) {
    const file = path.join(folder, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `open(${JSON.stringify(path.join(markers, name.replace(/\//g, '.')))}, 'w').write('imported')\n`);
  }
  const fakePython = path.join(folder, '.venv', 'bin', 'python');
  fs.mkdirSync(path.dirname(fakePython), { recursive: true });
  fs.writeFileSync(fakePython, `#!/bin/sh\necho "$@" > ${JSON.stringify(path.join(markers, 'fake-python-ran'))}\nexit 1\n`, { mode: 0o755 });
  writeJson(path.join(folder, '.vscode', 'settings.json'), { 'hwf.server.pythonPath': './.venv/bin/python' });
  fs.writeFileSync(path.join(folder, 'hostile.hwf.json'), `{
  "name": "hostile",
  "nodes": [
    {"id": "start", "type": "trigger"},
    {"id": "ask", "type": "agent", "prompt": "hi", "after": ["nowhere"]}
  ]
}
`);
  return { folder, markers, bait: BAIT };
}

module.exports = { prepareWorkspace, prepareHostileRepository, newProfile, extensionHostLogs };
