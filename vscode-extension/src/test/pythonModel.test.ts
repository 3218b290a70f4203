// Unit tests of how the server's Python is chosen and started (node --test): an
// untrusted workspace never chooses the interpreter, nor lands on sys.path.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import {
  checkOutsideWorkspace,
  checkPythonSetting,
  chooseServer,
  expandPath,
  findBundle,
  IMPORT_PROBE_ARGS,
  insideAny,
  isSupported,
  parseVersion,
  pythonEnvironment,
  safeDirectory,
  serverLaunch,
  VERSION_PROBE_ARGS,
  wantsInstalled,
} from '../model/pythonModel';

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hwf-python-model-')));
const repo = path.join(root, 'repo');
const other = path.join(root, 'other');
const outside = path.join(root, 'elsewhere');
for (const dir of [path.join(repo, '.venv', 'bin'), other, path.join(outside, 'bin')]) {
  fs.mkdirSync(dir, { recursive: true });
}
// A link outside the folder that points into it, and a link to the folder itself.
fs.symlinkSync(path.join(repo, '.venv'), path.join(root, 'venv-link'));
fs.symlinkSync(repo, path.join(root, 'repo-link'));
const folders = [repo, other];
after(() => fs.rmSync(root, { recursive: true, force: true }));
const home = os.homedir();

test('checkPythonSetting: in an untrusted workspace, an interpreter named by or inside the workspace is refused', () => {
  type Expected = string | { refused: RegExp } | undefined;
  const cases: [string, boolean, Expected][] = [
    ['', false, undefined],
    ['   ', false, undefined],
    // untrusted: refused
    ['${workspaceFolder}/.venv/bin/python', false, { refused: /workspaceFolder/ }],
    ['.venv/bin/python', false, { refused: /relative/ }],
    ['./python', false, { refused: /relative/ }],
    ['../repo/.venv/bin/python', false, { refused: /relative/ }],
    [path.join(repo, '.venv', 'bin', 'python'), false, { refused: /inside a workspace folder/ }],
    [path.join(other, 'python'), false, { refused: /inside a workspace folder/ }],
    [repo, false, { refused: /inside a workspace folder/ }],
    [path.join(root, 'venv-link', 'bin', 'python'), false, { refused: /inside a workspace folder/ }],
    [path.join(root, 'repo-link', 'python'), false, { refused: /inside a workspace folder/ }],
    [`${repo}/../repo/python`, false, { refused: /inside a workspace folder/ }],
    // untrusted: allowed (outside, or a bare name looked up on PATH)
    [path.join(outside, 'bin', 'python'), false, path.join(outside, 'bin', 'python')],
    [`${repo}-sibling/python`, false, `${repo}-sibling/python`],
    ['python3.12', false, 'python3.12'],
    ['~/venvs/hwf/bin/python', false, path.join(home, 'venvs', 'hwf', 'bin', 'python')],
    // trusted: expanded and used as before
    ['${workspaceFolder}/.venv/bin/python', true, path.join(repo, '.venv', 'bin', 'python')],
    ['.venv/bin/python', true, path.join(repo, '.venv', 'bin', 'python')],
    [path.join(repo, '.venv', 'bin', 'python'), true, path.join(repo, '.venv', 'bin', 'python')],
  ];
  for (const [raw, trusted, expected] of cases) {
    const verdict = checkPythonSetting(raw, folders, trusted);
    const label = `${raw} (${trusted ? 'trusted' : 'untrusted'})`;
    if (expected === undefined) {
      assert.equal(verdict, undefined, label);
    } else if (typeof expected === 'string') {
      assert.deepEqual(verdict, { ok: true, path: expected }, label);
    } else {
      assert.equal(verdict?.ok, false, label);
      assert.match(verdict && !verdict.ok ? verdict.why : '', expected.refused, label);
    }
  }
});

test("checkOutsideWorkspace: the Python extension's interpreter follows the same rule", () => {
  const inside = path.join(repo, '.venv', 'bin', 'python');
  assert.equal(checkOutsideWorkspace(inside, folders, false).ok, false);
  assert.deepEqual(checkOutsideWorkspace(inside, folders, true), { ok: true, path: inside });
  assert.deepEqual(checkOutsideWorkspace('/usr/bin/python3', folders, false), { ok: true, path: '/usr/bin/python3' });
  assert.deepEqual(checkOutsideWorkspace('python3', [repo, '/'], false), { ok: true, path: 'python3' });
});

test('insideAny and expandPath', () => {
  const cases: [string, readonly string[], boolean][] = [
    [repo, [repo], true],
    [path.join(repo, 'a', 'b'), [repo], true],
    [`${repo}x`, [repo], false],
    [root, [repo], false],
    ['/anything', ['/'], true],
    [path.join(root, 'repo-link', 'x'), [repo], true],
    [path.join(repo, 'x'), [path.join(root, 'repo-link')], true],
  ];
  for (const [p, roots, expected] of cases) {
    assert.equal(insideAny(p, roots), expected, `${p} in ${roots}`);
  }
  assert.equal(expandPath('~/x', undefined, '/home/u'), '/home/u/x');
  assert.equal(expandPath('${workspaceFolder}/x', '/w'), '/w/x');
  assert.equal(expandPath('a/b', '/w'), '/w/a/b');
  assert.equal(expandPath('python3', '/w'), 'python3');
});

test('safeDirectory: the first candidate outside every workspace folder', () => {
  const storage = path.join(root, 'storage');
  const cases: [string[], string[], string][] = [
    [[storage, os.tmpdir()], [repo], storage],
    [[path.join(repo, 'store'), outside], [repo], outside],
    [[home, os.tmpdir()], [home], os.tmpdir()],
    [[storage, outside], ['/'], storage], // nothing is outside `/`: -P still protects
  ];
  for (const [candidates, roots, expected] of cases) {
    assert.equal(safeDirectory(candidates, roots), expected, `${candidates} vs ${roots}`);
  }
});

test('pythonEnvironment: PYTHONSAFEPATH always; an untrusted workspace loses PYTHONPATH entries inside it', () => {
  const inside = path.join(repo, 'src');
  const kept = path.join(outside, 'lib');
  const base = { PATH: '/usr/bin', PYTHONPATH: [inside, kept, '', 'relative/dir'].join(path.delimiter), HOME: '/home/u' };
  const untrusted = pythonEnvironment(base, folders, false);
  assert.equal(untrusted.env.PYTHONSAFEPATH, '1');
  assert.equal(untrusted.env.PYTHONUNBUFFERED, '1');
  assert.equal(untrusted.env.PYTHONPATH, kept);
  assert.equal(untrusted.env.PATH, '/usr/bin');
  assert.deepEqual(untrusted.dropped, [inside, '(empty entry)', 'relative/dir']);
  const trusted = pythonEnvironment(base, folders, true);
  assert.equal(trusted.env.PYTHONPATH, base.PYTHONPATH);
  assert.equal(trusted.env.PYTHONSAFEPATH, '1');
  assert.deepEqual(trusted.dropped, []);
  const onlyInside = pythonEnvironment({ PYTHONPATH: inside }, folders, false);
  assert.equal('PYTHONPATH' in onlyInside.env, false);
  assert.equal(base.PYTHONPATH.includes(inside), true, 'the base environment is not modified');
});

test('serverLaunch: -P, the bundled entry or -m hwf_lsp, from the directory and with the environment it is given', () => {
  const { env } = pythonEnvironment({ PATH: '/usr/bin' }, folders, false);
  const cwd = safeDirectory([path.join(root, 'storage'), os.tmpdir()], folders);
  const entry = '/ext/bundled/tool/lsp_server.py';
  const cases: [Parameters<typeof serverLaunch>[1], string[]][] = [
    [{ kind: 'bundled', entry }, ['-P', entry]],
    [{ kind: 'installed' }, ['-P', '-m', 'hwf_lsp']],
  ];
  for (const [server, args] of cases) {
    const launch = serverLaunch('/usr/bin/python3', server, cwd, env);
    assert.deepEqual(launch.args, args);
    assert.equal(launch.command, '/usr/bin/python3');
    assert.equal(insideAny(launch.options.cwd, folders), false);
    assert.equal(launch.options.env.PYTHONSAFEPATH, '1');
  }
  assert.equal(VERSION_PROBE_ARGS[0], '-I');
  assert.equal(IMPORT_PROBE_ARGS[0], '-P');
});

test('chooseServer: a chosen interpreter with hwf-lsp runs its own; otherwise the bundled one', () => {
  type Source = Parameters<typeof chooseServer>[0];
  const cases: [Source, boolean, boolean, string | undefined, boolean][] = [
    // source, bundled, installed → server, probe the installed package?
    ['setting', true, true, 'installed', true],
    ['setting', true, false, 'bundled', true],
    ['python-extension', true, true, 'installed', true],
    ['python-extension', true, false, 'bundled', true],
    ['default', true, true, 'bundled', false],
    ['default', true, false, 'bundled', false],
    ['default', false, true, 'installed', true],
    ['setting', false, true, 'installed', true],
    ['setting', false, false, undefined, true],
    ['default', false, false, undefined, true],
  ];
  for (const [source, bundled, installed, expected, probe] of cases) {
    const label = `${source} bundled=${bundled} installed=${installed}`;
    assert.equal(chooseServer(source, bundled, installed), expected, label);
    assert.equal(wantsInstalled(source, bundled), probe, label);
  }
});

test('findBundle: the entry and the version of bundled/libs, or nothing', () => {
  const ext = path.join(root, 'extension');
  assert.equal(findBundle(ext), undefined);
  fs.mkdirSync(path.join(ext, 'bundled', 'tool'), { recursive: true });
  fs.writeFileSync(path.join(ext, 'bundled', 'tool', 'lsp_server.py'), '');
  assert.equal(findBundle(ext), undefined, 'an entry without libs is no bundle');
  fs.mkdirSync(path.join(ext, 'bundled', 'libs', 'hwf_lsp'), { recursive: true });
  fs.writeFileSync(path.join(ext, 'bundled', 'libs', 'hwf_lsp', '__init__.py'), '"""doc"""\n\n__version__ = "1.2.3"\n');
  assert.deepEqual(findBundle(ext), { entry: path.join(ext, 'bundled', 'tool', 'lsp_server.py'), version: '1.2.3' });
});

test('parseVersion and isSupported', () => {
  const cases: [string, [number, number, number] | undefined, boolean][] = [
    ['3.11.7\n', [3, 11, 7], true],
    ['3.13.0', [3, 13, 0], true],
    ['4.0.0', [4, 0, 0], true],
    ['3.10.13\n', [3, 10, 13], false],
    ['2.7.18', [2, 7, 18], false],
    ['Python 3.11.7', undefined, false],
    ['', undefined, false],
  ];
  for (const [stdout, version, supported] of cases) {
    assert.deepEqual(parseVersion(stdout), version, stdout);
    if (version) {
      assert.equal(isSupported(version), supported, stdout);
    }
  }
});

/** A Python 3.11+ on PATH, for the tests that run the real probes. */
function python311(): string | undefined {
  try {
    const out = execFileSync('python3', VERSION_PROBE_ARGS, { encoding: 'utf8', cwd: os.tmpdir() });
    const version = parseVersion(out);
    return version && isSupported(version) ? 'python3' : undefined;
  } catch {
    return undefined;
  }
}

test('the probes and the server flags import nothing from a hostile current directory', (t) => {
  const python = python311();
  if (!python) {
    t.skip('no Python 3.11+ on PATH');
    return;
  }
  // The worst case: even if Python started *in* the repository, -P / -I keep it off sys.path.
  const hostile = path.join(root, 'hostile');
  const marker = path.join(root, 'MARKER');
  const plant = `open(${JSON.stringify(marker)}, "a").write(__name__ + "\\n")\n`;
  for (const file of ['hwf_lsp/__init__.py', 'pygls/__init__.py', 'lsprotocol/__init__.py', 'json.py', 'encodings/__init__.py']) {
    fs.mkdirSync(path.dirname(path.join(hostile, file)), { recursive: true });
    fs.writeFileSync(path.join(hostile, file), plant);
  }
  const { env } = pythonEnvironment(process.env, [hostile], false);
  for (const args of [VERSION_PROBE_ARGS, IMPORT_PROBE_ARGS, ['-P', '-c', 'import json']]) {
    spawnSync(python, [...args], { cwd: hostile, env, encoding: 'utf8' });
    assert.equal(fs.existsSync(marker), false, `${args.join(' ')} ran ${fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : ''}`);
  }
  // Without the flags, the same directory is on sys.path: the test plants real bait.
  spawnSync(python, ['-c', 'import json'], { cwd: hostile, env: { ...process.env, PYTHONSAFEPATH: '' }, encoding: 'utf8' });
  assert.equal(fs.existsSync(marker), true, 'plain python -c imported the planted json.py');
});
