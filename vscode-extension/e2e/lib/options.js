// The command-line options the e2e test and the screenshots share.
'use strict';
const os = require('node:os');
const path = require('node:path');

/** `--name VALUE` from the command line, else `fallback`. */
function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

/** The repository, the .vsix, code-server's install dir and the server's Python. */
function commonOptions() {
  const repo = path.resolve(option('repo', path.join(__dirname, '..', '..', '..')));
  return {
    repo,
    vsix: path.resolve(option('vsix', path.join(repo, 'vscode-extension', 'hermes-workflow.vsix'))),
    codeServerDir: option('code-server', process.env.CODE_SERVER_DIR || path.join(os.homedir(), '.cache', 'code-server-e2e')),
    python: option('python', path.join(repo, '.venv', 'bin', 'python')),
  };
}

module.exports = { option, commonOptions };
