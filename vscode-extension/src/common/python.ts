/**
 * Which Python runs the language server: `hwf.server.pythonPath`, else the
 * interpreter selected in the Python extension, else `python3`. And whether that
 * interpreter can import `hwf_lsp`, checked before starting so the user gets the
 * exact fix instead of a crashed server.
 */
import { execFile } from 'child_process';
import * as vscode from 'vscode';
import { errorText, getLog } from './log';

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

export interface Interpreter {
  path: string;
  source: InterpreterSource;
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

export async function findInterpreter(configured: string, resource?: vscode.Uri): Promise<Interpreter> {
  if (configured !== '') {
    return { path: configured, source: 'setting' };
  }
  const selected = await pythonExtensionInterpreter(resource);
  if (selected) {
    return { path: selected, source: 'python-extension' };
  }
  return { path: DEFAULT_PYTHON, source: 'default' };
}

/** Calls `listener` when the user picks another interpreter in the Python extension. */
export async function onPythonInterpreterChanged(listener: () => void): Promise<vscode.Disposable | undefined> {
  const api = await pythonExtensionApi();
  return api?.environments.onDidChangeActiveEnvironmentPath(() => listener());
}

export type ImportCheck =
  | { ok: true }
  | { ok: false; reason: 'no-python' | 'no-package'; detail: string };

/**
 * Runs `<python> -c "import hwf_lsp"` in the directory and environment the server will
 * get (the current directory is on `sys.path` for both); tells a missing interpreter
 * from a missing package.
 */
export function checkServerImport(python: string, cwd: string | undefined, timeoutMs = 30000): Promise<ImportCheck> {
  return new Promise((resolve) => {
    execFile(python, ['-c', 'import hwf_lsp'], { timeout: timeoutMs, cwd, env: serverEnvironment() }, (error, _stdout, stderr) => {
      if (!error) {
        resolve({ ok: true });
        return;
      }
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EACCES') {
        resolve({ ok: false, reason: 'no-python', detail: `${python}: ${code === 'ENOENT' ? 'not found' : 'not executable'}` });
        return;
      }
      const lastLine = stderr.trim().split('\n').pop() ?? error.message;
      resolve({ ok: false, reason: 'no-package', detail: lastLine });
    });
  });
}

/** The environment of the server process (and of the import check). */
export function serverEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env, PYTHONUNBUFFERED: '1' };
}

/** The directory the server runs in: the first workspace folder. */
export function serverDirectory(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}
