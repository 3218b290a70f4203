// One VS Code window: code-server on a folder with a profile, and a headless Chromium
// page showing it. Shared by the e2e test (run.js) and the README screenshots.
'use strict';
const { chromium } = require('playwright-core');
const { startCodeServer } = require('./codeServer');
const { Workbench, LAUNCH_ARGS } = require('./workbench');

/**
 * Opens `folder` in code-server with profile `userDataDir` (HERMES_HOME from `world`),
 * in a 1400×900 page, the side bar `widen` pixels wider. `onPage` gets the page as soon
 * as it exists (for a screenshot when a step fails). `close` stops both.
 */
async function openSession({ codeServerDir, world, userDataDir, folder = world.folder, trust = false, env = {}, widen = 220, onPage = () => undefined }) {
  const server = await startCodeServer({
    dir: codeServerDir,
    extensionsDir: world.extensionsDir,
    userDataDir,
    folder,
    env: { ...process.env, HERMES_HOME: world.hermesHome, ...env },
    logFile: world.logFile,
    trust,
  });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: LAUNCH_ARGS });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const wb = new Workbench(page);
  onPage(page);
  const close = async () => {
    await browser.close().catch(() => undefined);
    await server.stop();
  };
  try {
    await wb.open(server.url, folder);
    if (widen) {
      await wb.widenSideBar(widen);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { wb, page, close };
}

module.exports = { openSession };
