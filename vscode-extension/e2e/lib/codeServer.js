// Starting and stopping code-server (real VS Code, served to the browser) for one test run.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const net = require('node:net');
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');

function entryOf(dir) {
  return path.join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
}

/** A free TCP port on the loopback interface. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function installExtension({ dir, extensionsDir, userDataDir, vsix }) {
  const result = spawnSync(
    process.execPath,
    [entryOf(dir), '--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, '--install-extension', vsix],
    { encoding: 'utf8', timeout: 120000 },
  );
  const output = `${result.stdout}\n${result.stderr}`;
  if (result.status !== 0 || !/successfully installed/i.test(output)) {
    throw new Error(`--install-extension failed (exit ${result.status}):\n${output}`);
  }
  return output.trim();
}

function get(url) {
  return new Promise((resolve) => {
    const request = http.get(url, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('error', () => resolve(0));
    request.setTimeout(2000, () => {
      request.destroy();
      resolve(0);
    });
  });
}

/** Starts code-server on `folder`; resolves once it answers HTTP. */
async function startCodeServer({ dir, extensionsDir, userDataDir, folder, env, logFile, trust = false }) {
  const port = await freePort();
  const out = fs.openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      entryOf(dir),
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      ...(trust ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override',
      '--user-data-dir', userDataDir,
      '--extensions-dir', extensionsDir,
      folder,
    ],
    // Its own directory: nothing of the caller's (a checkout on sys.path) leaks in.
    { env, cwd: path.dirname(userDataDir), stdio: ['ignore', out, out], detached: true },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`code-server exited with ${child.exitCode}; see ${logFile}`);
    }
    if ((await get(`${url}/healthz`)) === 200) {
      return { url, port, child, stop: () => stopProcessGroup(child) };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  stopProcessGroup(child);
  throw new Error(`code-server did not answer on ${url} within 60 s; see ${logFile}`);
}

/** Stops code-server and everything it started (extension host, language server). */
async function stopProcessGroup(child) {
  if (child.exitCode !== null) {
    return;
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }, 5000);
  await exited;
  clearTimeout(timer);
}

module.exports = { installExtension, startCodeServer, freePort };
