/**
 * Which Python runs the language server: `hwf.server.pythonPath`, else the
 * interpreter selected in the Python extension, else `python3` — the first of them
 * that is Python 3.11+. In an untrusted workspace an interpreter inside (or named
 * relative to) a workspace folder is refused. Every probe runs outside the
 * workspace with the rules of pythonModel.ts.
 */
import { execFile } from 'child_process';
import * as vscode from 'vscode';
import { errorText, getLog } from './log';
import {
  checkOutsideWorkspace,
  checkPythonSetting,
  IMPORT_PROBE_ARGS,
  InterpreterSource,
  isSupported,
  MIN_PYTHON_TEXT,
  parseVersion,
  ServerKind,
  VERSION_PROBE_ARGS,
} from '../model/pythonModel';

export type { InterpreterSource } from '../model/pythonModel';

export interface Interpreter {
  path: string;
  source: InterpreterSource;
  /** "3.11.7", once probed. */
  version?: string;
  /** Which hwf-lsp it runs, once chosen. */
  server?: ServerKind;
  /** Why it may not be used (Restricted Mode): passed over, and said to the user. */
  refused?: string;
}

export const DEFAULT_PYTHON = 'python3';
const PYTHON_EXTENSION_ID = 'ms-python.python';

/** The parts of the Python extension's API we use (its `environments` API). */
interface PythonEnvironmentsApi {
  environments: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string };
    resolveEnvironment(env: { id: string; path: string } | string): Promise<
      { executable: { uri?: vscode.Uri } } | undefined
    >;
    onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
  };
}

async function pythonExtensionApi(): Promise<PythonEnvironmentsApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonEnvironmentsApi>(PYTHON_EXTENSION_ID);
  if (!extension) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    return api?.environments ? api : undefined;
  } catch (error) {
    getLog().warn(`The Python extension did not activate: ${errorText(error)}`);
    return undefined;
  }
}

/** The interpreter selected in the Python extension, if it is installed and has one. */
async function pythonExtensionInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  const api = await pythonExtensionApi();
  if (!api) {
    return undefined;
  }
  try {
    const active = api.environments.getActiveEnvironmentPath(resource);
    const resolved = await api.environments.resolveEnvironment(active);
    return resolved?.executable.uri?.fsPath ?? active.path;
  } catch (error) {
    getLog().warn(`Could not read the Python extension's interpreter: ${errorText(error)}`);
    return undefined;
  }
}

/** The local workspace folders (what an untrusted interpreter must stay out of). */
export function workspaceFolderPaths(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

/**
 * The interpreters to try, in order. A refused one is logged (with why) and skipped,
 * so the next source is tried.
 */
export async function interpreterCandidates(rawSetting: string, trusted: boolean, resource?: vscode.Uri): Promise<Interpreter[]> {
  const folders = workspaceFolderPaths();
  const candidates: Interpreter[] = [];
  const refuse = (what: string, why: string) =>
    getLog().warn(`Ignoring ${what}: ${why}, and this workspace is not trusted (its files could be the interpreter). Trust the workspace, or name an interpreter outside it.`);
  const setting = checkPythonSetting(rawSetting, folders, trusted);
  if (setting?.ok) {
    candidates.push({ path: setting.path, source: 'setting' });
  } else if (setting) {
    refuse(`hwf.server.pythonPath "${rawSetting}"`, setting.why);
    candidates.push({ path: rawSetting, source: 'setting', refused: `${setting.why}, in Restricted Mode` });
  }
  const selected = await pythonExtensionInterpreter(resource);
  if (selected) {
    const verdict = checkOutsideWorkspace(selected, folders, trusted);
    if (verdict.ok) {
      candidates.push({ path: selected, source: 'python-extension' });
    } else {
      refuse(`the Python extension's interpreter ${selected}`, verdict.why);
    }
  }
  candidates.push({ path: DEFAULT_PYTHON, source: 'default' });
  return candidates;
}

/** Calls `listener` when the user picks another interpreter in the Python extension. */
export async function onPythonInterpreterChanged(listener: () => void): Promise<vscode.Disposable | undefined> {
  const api = await pythonExtensionApi();
  return api?.environments.onDidChangeActiveEnvironmentPath(() => listener());
}

export interface ProbeContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

type ProbeResult = { ok: true; stdout: string } | { ok: false; missing: boolean; detail: string };

function probe(python: string, args: readonly string[], { cwd, env, timeoutMs = 30000 }: ProbeContext): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(python, [...args], { timeout: timeoutMs, cwd, env }, (error, stdout, stderr) => {
      if (!error) {
        resolve({ ok: true, stdout });
        return;
      }
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EACCES') {
        resolve({ ok: false, missing: true, detail: code === 'ENOENT' ? 'not found' : 'not executable' });
        return;
      }
      resolve({ ok: false, missing: false, detail: stderr.trim().split('\n').pop() || error.message });
    });
  });
}

export type VersionCheck = { ok: true; version: string } | { ok: false; detail: string };

/** Is `python` a Python 3.11+? "not found", "Python 3.9.18" (too old) or what it printed. */
export async function checkVersion(python: string, context: ProbeContext): Promise<VersionCheck> {
  const result = await probe(python, VERSION_PROBE_ARGS, context);
  if (!result.ok) {
    return { ok: false, detail: result.detail };
  }
  const version = parseVersion(result.stdout);
  if (!version) {
    return { ok: false, detail: `not a Python 3 (it printed ${JSON.stringify(result.stdout.trim().slice(0, 80))})` };
  }
  const text = version.join('.');
  return isSupported(version) ? { ok: true, version: text } : { ok: false, detail: `Python ${text}, older than ${MIN_PYTHON_TEXT}` };
}

export type FoundPython =
  | { ok: true; interpreter: Interpreter; settingUnused?: { path: string; why: string } }
  | { ok: false; tried: string[] };

/** The first candidate that is Python 3.11+; each one passed over is logged, and a
 * configured one passed over (`settingUnused`) is for the user to hear of too. */
export async function firstSupportedPython(candidates: Interpreter[], context: ProbeContext): Promise<FoundPython> {
  const tried: string[] = [];
  let settingUnused: { path: string; why: string } | undefined;
  for (const candidate of candidates) {
    const check: VersionCheck = candidate.refused !== undefined
      ? { ok: false, detail: candidate.refused }
      : await checkVersion(candidate.path, context);
    if (check.ok) {
      return { ok: true, interpreter: { ...candidate, version: check.version }, settingUnused };
    }
    tried.push(`${candidate.path} (${check.detail})`);
    if (candidate.source === 'setting') {
      settingUnused = { path: candidate.path, why: check.detail };
    }
    if (candidate.refused === undefined) {
      getLog().warn(`Not using ${candidate.path} from ${describeSource(candidate)}: ${check.detail}.`);
    }
  }
  return { ok: false, tried };
}

export type ImportCheck = { ok: true; version: string } | { ok: false; detail: string };

/** Can `python` import hwf_lsp and its libraries, with the server's flags and environment? */
export async function checkServerImport(python: string, context: ProbeContext): Promise<ImportCheck> {
  const result = await probe(python, IMPORT_PROBE_ARGS, context);
  return result.ok ? { ok: true, version: result.stdout.trim() } : { ok: false, detail: result.detail };
}

export function describeSource(interpreter: Interpreter): string {
  switch (interpreter.source) {
    case 'setting':
      return 'the hwf.server.pythonPath setting';
    case 'python-extension':
      return "the Python extension's selected interpreter";
    default:
      return 'the default';
  }
}
