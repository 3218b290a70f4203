// The throwaway world of one test run: a copy of examples/ as the workspace, its
// settings, an empty HERMES_HOME, a fresh VS Code profile.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');

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

/**
 * A Python that has NOT installed hwf-lsp (a fresh venv without pip made from
 * `python`), so the extension must run the server it carries. Throws if it can
 * import hwf_lsp after all.
 */
function barePython(root, python) {
  const venv = path.join(root, 'bare-venv');
  execFileSync(python, ['-m', 'venv', '--without-pip', venv]);
  const bare = path.join(venv, 'bin', 'python');
  const probe = spawnSync(bare, ['-P', '-c', 'import hwf_lsp'], { cwd: root, encoding: 'utf8' });
  if (probe.status === 0) {
    throw new Error(`${bare} can import hwf_lsp: not a Python without hwf-lsp`);
  }
  return bare;
}

function prepareWorkspace({ repo, python }) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hwf-vscode-e2e-'));
  const serverPython = barePython(root, python);
  const folder = path.join(root, 'workspace');
  fs.cpSync(path.join(repo, 'examples'), folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'completion-check.hwf.json'), COMPLETION_DESIGN);
  writeJson(path.join(folder, '.vscode', 'settings.json'), {
    'hwf.server.pythonPath': serverPython,
    'hwf.agent.command': ['python3', path.join(repo, 'examples', 'agents', 'echo_agent.py')],
    'hwf.trace.server': 'messages',
  });
  const hermesHome = path.join(root, 'hermes-home');
  fs.mkdirSync(hermesHome, { recursive: true });
  return {
    root,
    folder,
    serverPython,
    userDataDir: newProfile(root, 'user-data'),
    extensionsDir: path.join(root, 'extensions'),
    hermesHome,
    logFile: path.join(root, 'code-server.log'),
    completionDesign: COMPLETION_DESIGN,
  };
}

/**
 * The README's demo: a folder named `examples` holding only the example designs (no
 * agents, channels, expectations or editor settings: those live in the profile), an
 * empty HERMES_HOME and a profile whose user settings name the server's Python and the
 * echo agent.
 */
function prepareDemoWorkspace({ repo, python }) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hwf-screenshots-'));
  const folder = path.join(root, 'examples');
  const examples = path.join(repo, 'examples');
  fs.mkdirSync(folder);
  for (const name of fs.readdirSync(examples).filter((f) => f.endsWith('.hwf.json'))) {
    fs.copyFileSync(path.join(examples, name), path.join(folder, name));
  }
  fs.cpSync(path.join(examples, 'workflow-designs'), path.join(folder, 'workflow-designs'), { recursive: true });
  const hermesHome = path.join(root, 'hermes-home');
  fs.mkdirSync(hermesHome);
  return {
    root,
    folder,
    hermesHome,
    userDataDir: newProfile(root, 'user-data', {
      'hwf.server.pythonPath': python,
      'hwf.agent.command': ['python3', path.join(examples, 'agents', 'echo_agent.py')],
      'workbench.editor.enablePreview': false,
    }),
    extensionsDir: path.join(root, 'extensions'),
    logFile: path.join(root, 'code-server.log'),
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

/** The text of our output channel's logs under `userDataDir`. */
function hermesLog(userDataDir) {
  return extensionHostLogs(userDataDir).filter((f) => f.endsWith('Hermes Workflow.log'))
    .map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

/**
 * Pythons older than 3.11 on this machine (pyenv's, /usr/bin's), oldest last, for the
 * "no Python 3.11+" scenario.
 */
function oldPythons() {
  const found = [];
  const pyenv = process.env.PYENV_ROOT || path.join(os.homedir(), '.pyenv');
  const versions = path.join(pyenv, 'versions');
  const candidates = [
    ...(fs.existsSync(versions) ? fs.readdirSync(versions).map((v) => path.join(versions, v, 'bin', 'python3')) : []),
    ...['3.10', '3.9', '3.8'].map((v) => `/usr/bin/python${v}`),
  ];
  for (const candidate of candidates) {
    const out = spawnSync(candidate, ['-I', '-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'], { encoding: 'utf8' });
    const match = /^3\.(\d+)\.\d+$/.exec((out.stdout || '').trim());
    if (out.status === 0 && match && Number(match[1]) < 11) {
      found.push({ path: candidate, version: out.stdout.trim() });
    }
  }
  return found.sort((a, b) => b.version.localeCompare(a.version, undefined, { numeric: true }));
}

module.exports = { prepareWorkspace, prepareDemoWorkspace, prepareHostileRepository, newProfile, extensionHostLogs, hermesLog, oldPythons };
