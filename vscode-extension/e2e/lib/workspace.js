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

module.exports = { prepareWorkspace, newProfile, extensionHostLogs };
