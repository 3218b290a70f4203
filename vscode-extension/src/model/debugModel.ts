/**
 * The workflow debugger's pure parts (docs/debugging.md): how the
 * adapter process starts (the language server's Python and libraries, `hwf_lsp.cli
 * debug-adapter`), the launch configurations the extension writes (a design; a design
 * test case), and which design node a line or a breakpoint belongs to. No VS Code API
 * (unit tested with node's test runner); debug.ts does the I/O.
 */
import * as path from 'path';
import type { Launch, ServerKind } from './pythonModel';

/** The debug type of package.json's `debuggers` contribution and of every launch configuration. */
export const DEBUG_TYPE = 'hwf';

/** The adapter's arguments after the interpreter: `-P` keeps the working directory off `sys.path`. */
export const ADAPTER_ARGS: readonly string[] = ['-P', '-m', 'hwf_lsp.cli', 'debug-adapter'];

/**
 * The adapter process, started as the language server is: the same interpreter, directory
 * and environment. The bundled server's libraries (`bundled/libs`) go first on PYTHONPATH,
 * so they win over whatever the interpreter has installed, as `bundled/tool/lsp_server.py`
 * puts them first on `sys.path`. `hermesHome` (the setting) becomes `HERMES_HOME`.
 */
export function adapterLaunch(
  python: string,
  server: { kind: 'installed' } | { kind: 'bundled'; libs: string },
  cwd: string,
  env: NodeJS.ProcessEnv,
  hermesHome = '',
): Launch {
  const adapterEnv: NodeJS.ProcessEnv = { ...env };
  if (server.kind === 'bundled') {
    adapterEnv.PYTHONPATH = env.PYTHONPATH ? `${server.libs}${path.delimiter}${env.PYTHONPATH}` : server.libs;
  }
  if (hermesHome !== '') {
    adapterEnv.HERMES_HOME = hermesHome;
  }
  return { command: python, args: [...ADAPTER_ARGS], options: { cwd, env: adapterEnv } };
}

/** `bundled/libs` of the server a .vsix carries (beside `bundled/tool/lsp_server.py`). */
export function bundledLibs(entry: string): string {
  return path.join(path.dirname(path.dirname(entry)), 'libs');
}

/** Which kind of server the language server runs, for the adapter's launch. */
export function adapterServer(kind: ServerKind | undefined, entry: string | undefined): { kind: 'installed' } | { kind: 'bundled'; libs: string } | undefined {
  if (kind === 'installed') {
    return { kind };
  }
  return kind === 'bundled' && entry ? { kind, libs: bundledLibs(entry) } : undefined;
}

/** A launch configuration of the `hwf` debugger (its launch arguments: docs/debugging.md). */
export interface HwfLaunch {
  type: string;
  request: string;
  name: string;
  design?: string;
  agentCommand?: string;
  deliveryCommand?: string;
  testCase?: string;
  replay?: string;
  from?: string;
  stopOnEntry?: boolean;
  [key: string]: unknown;
}

/**
 * An argv as one command line the adapter splits the way Python's `shlex.split` does (the
 * agent seam's `--agent-command` form): each argument single-quoted unless it is plain.
 */
export function shellJoin(argv: readonly string[]): string {
  return argv.map((arg) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'"'"'`)}'`)).join(' ');
}

/** The file name of a path, for a configuration's name. */
function baseName(file: string): string {
  return file.replace(/^.*[\\/]/, '');
}

/** "Debug" on a design: the whole design, real agents (the settings' agent command). */
export function designLaunch(design: string): HwfLaunch {
  return { type: DEBUG_TYPE, request: 'launch', name: `Debug ${baseName(design)}`, design };
}

/**
 * "Debug this case" on a design test case: that case's mocked agents and answers
 * (`testCase` is `<file>.hwf-test.json#<case name>`), nothing else called. `design` is
 * the file the test file names, when it names one beside it (else the adapter reads it
 * from the test file).
 */
export function caseLaunch(testFile: string, caseName: string, design: string | undefined): HwfLaunch {
  const launch: HwfLaunch = { type: DEBUG_TYPE, request: 'launch', name: `Debug case: ${caseName}`, testCase: `${testFile}#${caseName}` };
  if (design) {
    launch.design = design;
  }
  return launch;
}

/** The design file a test file names (`design`, relative to the test file), or undefined for a stored design's name. */
export function testFileDesign(testFile: string, designField: unknown, exists: (file: string) => boolean): string | undefined {
  if (typeof designField !== 'string' || designField === '') {
    return undefined;
  }
  const candidate = path.resolve(path.dirname(testFile), designField);
  return exists(candidate) ? candidate : undefined;
}

/** What the settings supply when a launch configuration leaves it out. */
export interface LaunchDefaults {
  /** The file in the active editor, when it is a design. */
  activeDesign?: string;
  agentCommand: readonly string[];
  deliveryCommand: readonly string[];
}

/**
 * A launch configuration made whole: F5 with no launch.json debugs the active design; the
 * agent and delivery commands come from the settings when the configuration names none
 * (a design file never chooses them: these are the user's), except for a design test
 * case, which calls no command. An error message when there is nothing to debug.
 */
export function completeLaunch(config: Record<string, unknown>, defaults: LaunchDefaults): HwfLaunch | { error: string } {
  const launch: HwfLaunch = { ...config, type: DEBUG_TYPE, request: typeof config.request === 'string' ? config.request : 'launch', name: typeof config.name === 'string' ? config.name : '' };
  if (launch.design === undefined && launch.testCase === undefined) {
    if (!defaults.activeDesign) {
      return { error: 'Open a design (or name one with "design" in the launch configuration) to debug it.' };
    }
    launch.design = defaults.activeDesign;
  }
  if (!launch.name) {
    launch.name = launch.design ? `Debug ${baseName(String(launch.design))}` : 'Debug a workflow';
  }
  if (launch.testCase !== undefined) {
    return launch; // the case's mocked agents and recorded deliveries: no command is called
  }
  if (launch.agentCommand === undefined && defaults.agentCommand.length > 0) {
    launch.agentCommand = shellJoin(defaults.agentCommand);
  }
  if (launch.deliveryCommand === undefined && defaults.deliveryCommand.length > 0) {
    launch.deliveryCommand = shellJoin(defaults.deliveryCommand);
  }
  return launch;
}

export interface Line {
  line: number;
}

/** A node of the canvas's graph with the lines its object spans (0-based, inclusive). */
export interface NodeLines {
  id: string;
  kind: string;
  range?: { start: Line; end: Line };
}

/** The node whose object spans `line` (0-based). */
export function nodeOnLine(nodes: readonly NodeLines[], line: number): NodeLines | undefined {
  return nodes.find((n) => n.range !== undefined && n.range.start.line <= line && line <= n.range.end.line);
}

/** Kinds a breakpoint can stop before: the steps (a trigger and a note never run). */
const STEP_KINDS: ReadonlySet<string> = new Set(['agent', 'condition', 'approval', 'output']);

/** The ids of the steps that have a breakpoint on a line of their object (the canvas's red dots). */
export function nodesWithBreakpoints(nodes: readonly NodeLines[], breakpointLines: readonly number[]): string[] {
  const ids = new Set<string>();
  for (const line of breakpointLines) {
    const node = nodeOnLine(nodes, line);
    if (node && STEP_KINDS.has(node.kind)) {
      ids.add(node.id);
    }
  }
  return [...ids];
}

/**
 * What a click on a node's breakpoint toggle does: remove the breakpoints on the node's
 * lines, or add one at its first line. Nothing for a node that is not a step.
 */
export function breakpointToggle(node: NodeLines | undefined, breakpointLines: readonly number[]): { remove: number[] } | { add: number } | undefined {
  if (!node?.range || !STEP_KINDS.has(node.kind)) {
    return undefined;
  }
  const { start, end } = node.range;
  const on = breakpointLines.filter((line) => start.line <= line && line <= end.line);
  return on.length > 0 ? { remove: on } : { add: start.line };
}

/** Where a debug session is stopped: a design file and a 1-based line (a DAP stack frame's). */
export interface StopPlace {
  path: string;
  line: number;
}

/** The top frame of a DAP `stackTrace` response body, as a place; undefined when it has no source path. */
export function topFrame(body: unknown): StopPlace | undefined {
  const frames = typeof body === 'object' && body !== null ? (body as { stackFrames?: unknown }).stackFrames : undefined;
  const top = Array.isArray(frames) ? frames[0] : undefined;
  const file = top?.source?.path;
  return typeof file === 'string' && Number.isInteger(top.line) ? { path: file, line: top.line } : undefined;
}

/** An environment with only its set variables (what VS Code's DebugAdapterExecutable takes). */
export function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
