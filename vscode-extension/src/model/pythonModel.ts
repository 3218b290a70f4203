/**
 * How the language server's Python is chosen and started, as pure functions (no VS
 * Code API, so unit tested; python.ts and server.ts do the I/O).
 *
 * The threat: a repository the user opens is not trusted. Python puts the current
 * directory (or the script's) first on `sys.path`, so a process started *in* the
 * repository imports the repository's `json.py`, `pygls/`, `hwf_lsp/`… before its
 * own. And an interpreter *inside* the repository (`.venv/bin/python`, or a script
 * named so) is the repository's code. So every Python we start runs from a directory
 * outside every workspace folder, with `-P`/`PYTHONSAFEPATH=1` (Python 3.11+: no
 * script or current directory on `sys.path`), and an untrusted workspace never gets
 * to choose the interpreter.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** The oldest Python the server runs on (pyproject.toml `requires-python`). */
export const MIN_PYTHON: readonly [number, number] = [3, 11];
export const MIN_PYTHON_TEXT = `${MIN_PYTHON[0]}.${MIN_PYTHON[1]}`;

/** `~` and `${workspaceFolder}` expanded; a relative path with a separator resolved against the folder. */
export function expandPath(value: string, folder: string | undefined, home: string = os.homedir()): string {
  let result = value.trim();
  if (result === '') {
    return result;
  }
  if (folder) {
    result = result.replace(/\$\{workspaceFolder\}/g, folder);
  }
  if (result === '~' || result.startsWith('~/')) {
    result = path.join(home, result.slice(1));
  }
  if (folder && !path.isAbsolute(result) && result.includes(path.sep)) {
    result = path.resolve(folder, result);
  }
  return result;
}

/** The path with the symlinks of its longest existing prefix resolved. */
function realOrResolved(p: string): string {
  const absolute = path.resolve(p);
  let prefix = absolute;
  while (true) {
    try {
      return path.join(fs.realpathSync.native(prefix), path.relative(prefix, absolute));
    } catch {
      const parent = path.dirname(prefix);
      if (parent === prefix) {
        return absolute;
      }
      prefix = parent;
    }
  }
}

function within(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * True when `p` is one of `folders` or lies below one, by its path as written or by
 * its real path (a symlinked folder, or a link into one).
 */
export function insideAny(p: string, folders: readonly string[]): boolean {
  const forms = [path.resolve(p), realOrResolved(p)];
  return folders.some((folder) => {
    const roots = [path.resolve(folder), realOrResolved(folder)];
    return forms.some((form) => roots.some((root) => within(form, root)));
  });
}

export type PathVerdict = { ok: true; path: string } | { ok: false; why: string };

/**
 * The interpreter an `hwf.server.pythonPath` value names, or why it is refused. In a
 * trusted workspace anything goes. In an untrusted one a value that depends on the
 * workspace (relative with a separator, `${workspaceFolder}`) or lands inside a
 * workspace folder is refused: that file is the repository's to write. A bare command
 * name (`python3.12`) is looked up on PATH, from a directory outside the workspace.
 */
export function checkPythonSetting(raw: string, folders: readonly string[], trusted: boolean): PathVerdict | undefined {
  const value = raw.trim();
  if (value === '') {
    return undefined;
  }
  const expanded = expandPath(value, folders[0]);
  if (trusted) {
    return { ok: true, path: expanded };
  }
  if (value.includes('${workspaceFolder}')) {
    return { ok: false, why: 'it uses ${workspaceFolder}' };
  }
  const bare = !value.includes('/') && !value.includes('\\') && !value.startsWith('~');
  if (!bare && !path.isAbsolute(expandPath(value, undefined))) {
    return { ok: false, why: 'it is a relative path (resolved against the workspace folder)' };
  }
  return checkOutsideWorkspace(expanded, folders, trusted);
}

/** Refuses an interpreter path inside a workspace folder when the workspace is not trusted. */
export function checkOutsideWorkspace(p: string, folders: readonly string[], trusted: boolean): PathVerdict {
  if (!trusted && (p.includes('/') || p.includes('\\')) && insideAny(p, folders)) {
    return { ok: false, why: 'it lies inside a workspace folder' };
  }
  return { ok: true, path: p };
}

/**
 * The directory every Python process starts in: the first candidate outside every
 * workspace folder (the extension's storage, the temp dir, …). When none is (a
 * workspace folder at `/`), the first one: `-P` still keeps it off `sys.path`.
 */
export function safeDirectory(candidates: readonly string[], folders: readonly string[]): string {
  return candidates.find((dir) => !insideAny(dir, folders)) ?? candidates[0];
}

/**
 * The environment of every Python process: the extension host's, plus
 * `PYTHONSAFEPATH=1` (as `-P`), `PYTHONUNBUFFERED=1`, and — in an untrusted
 * workspace — PYTHONPATH without entries inside a workspace folder or relative
 * ones (they would resolve against our directory and mean nothing). The other
 * PYTHON* variables (PYTHONHOME, PYTHONUSERBASE, …) are the user's own environment,
 * which no workspace file sets, and stay. `dropped` lists what was removed.
 */
export function pythonEnvironment(
  base: NodeJS.ProcessEnv,
  folders: readonly string[],
  trusted: boolean,
): { env: NodeJS.ProcessEnv; dropped: string[] } {
  const env: NodeJS.ProcessEnv = { ...base, PYTHONUNBUFFERED: '1', PYTHONSAFEPATH: '1' };
  const dropped: string[] = [];
  if (!trusted && base.PYTHONPATH !== undefined) {
    const kept = base.PYTHONPATH.split(path.delimiter).filter((entry) => {
      const keep = entry !== '' && path.isAbsolute(entry) && !insideAny(entry, folders);
      if (!keep) {
        dropped.push(entry === '' ? '(empty entry)' : entry);
      }
      return keep;
    });
    if (kept.length > 0) {
      env.PYTHONPATH = kept.join(path.delimiter);
    } else {
      delete env.PYTHONPATH;
    }
  }
  return { env, dropped };
}

/**
 * The version probe: `-I` (isolated: no PYTHON* variables, no user site, no current
 * directory on `sys.path`) works on every Python 3, so an old one is told apart
 * from a missing one, and imports nothing.
 */
export const VERSION_PROBE_ARGS: readonly string[] = ['-I', '-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'];

export type Version = [number, number, number];

export function parseVersion(stdout: string): Version | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)\s*$/.exec(stdout.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

export function isSupported(version: Version): boolean {
  return version[0] > MIN_PYTHON[0] || (version[0] === MIN_PYTHON[0] && version[1] >= MIN_PYTHON[1]);
}

/**
 * The check that the interpreter can import the server, run with the server's own
 * flags (`-P`) and environment, so it sees the same `sys.path` as the server.
 */
export const IMPORT_PROBE_ARGS: readonly string[] = ['-P', '-c', 'import hwf_lsp, pygls, lsprotocol; print(hwf_lsp.__version__)'];

/**
 * Which server runs. The .vsix carries one (`bundled/libs`, run by any Python 3.11+);
 * an interpreter the user chose (the setting, or the Python extension's) that has
 * hwf-lsp installed runs its own instead. The default `python3` always runs the
 * bundled one: nobody chose that interpreter's packages.
 */
export type ServerKind = 'bundled' | 'installed';

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

/** Is the installed package worth probing for? (It is the only way when nothing is bundled.) */
export function wantsInstalled(source: InterpreterSource, bundled: boolean): boolean {
  return source !== 'default' || !bundled;
}

export function chooseServer(source: InterpreterSource, bundled: boolean, installed: boolean): ServerKind | undefined {
  if (installed && wantsInstalled(source, bundled)) {
    return 'installed';
  }
  return bundled ? 'bundled' : undefined;
}

export interface Bundle {
  /** bundled/tool/lsp_server.py */
  entry: string;
  /** The hwf-lsp version in bundled/libs. */
  version: string;
}

/** The server the .vsix carries, if this build has one (`make vsix` fills bundled/libs). */
export function findBundle(extensionDir: string): Bundle | undefined {
  const entry = path.join(extensionDir, 'bundled', 'tool', 'lsp_server.py');
  const init = path.join(extensionDir, 'bundled', 'libs', 'hwf_lsp', '__init__.py');
  try {
    const version = /__version__\s*=\s*["']([^"']+)["']/.exec(fs.readFileSync(init, 'utf8'))?.[1] ?? '?';
    return fs.existsSync(entry) ? { entry, version } : undefined;
  } catch {
    return undefined;
  }
}

export interface Launch {
  command: string;
  args: string[];
  options: { cwd: string; env: NodeJS.ProcessEnv };
}

/**
 * The server process, from `cwd`, with `env`: `<python> -P bundled/tool/lsp_server.py`
 * (bundled) or `<python> -P -m hwf_lsp` (installed).
 */
export function serverLaunch(python: string, server: { kind: 'installed' } | { kind: 'bundled'; entry: string }, cwd: string, env: NodeJS.ProcessEnv): Launch {
  const args = server.kind === 'bundled' ? ['-P', server.entry] : ['-P', '-m', 'hwf_lsp'];
  return { command: python, args, options: { cwd, env } };
}

/**
 * The words for a configured interpreter that could not be used (hwf.server.pythonPath
 * not found, too old, refused in Restricted Mode): what was set, why, and the fallback
 * the server runs on instead -- said in a notification and the language status item,
 * never only in the log.
 */
export function settingNotUsedText(setting: string, why: string, fallback: { path: string; version?: string; from: string }): string {
  const version = fallback.version ? `Python ${fallback.version}, ` : '';
  return `hwf.server.pythonPath "${setting}" cannot be used (${why}): the language server runs on ${fallback.path} (${version}${fallback.from}) instead.`;
}
