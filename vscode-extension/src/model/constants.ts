/** Ids shared by package.json, the server and the code: one spelling each. */

export const EXTENSION_NAME = 'Hermes Workflow';
export const CLIENT_ID = 'hwf';
export const RUNS_VIEW_ID = 'hwf.runs';
export const RUNS_CHANGED_NOTIFICATION = 'hwf/runsChanged';

/** Commands the language server executes (workspace/executeCommand). */
export const ServerCommand = {
  startRun: 'hwf.startRun',
  runFromHere: 'hwf.runFromHere',
  resumeRun: 'hwf.resumeRun',
  answerApproval: 'hwf.answerApproval',
  respondAgent: 'hwf.respondAgent',
  cancelRun: 'hwf.cancelRun',
  listRuns: 'hwf.listRuns',
  /** One step of a run in full (docs/commands.md): the step detail view. */
  showStep: 'hwf.showStep',
  /** The canvas's graph of a design's current text (docs/commands.md, "Canvas"). */
  graph: 'hwf.graph',
  /** A design test file's cases run in memory (docs/commands.md, "Design tests"). */
  runDesignTests: 'hwf.runDesignTests',
} as const;

/** Server commands that act on runs: refused in an untrusted workspace (so does the server). */
export const RUN_COMMANDS: ReadonlySet<string> = new Set([
  ServerCommand.cancelRun,
  ServerCommand.startRun,
  ServerCommand.runFromHere,
  ServerCommand.resumeRun,
  ServerCommand.answerApproval,
  ServerCommand.respondAgent,
]);

/** Client-side commands (different ids: the client registers the server's own). */
export const UiCommand = {
  startRun: 'hwf.ui.startRun',
  runFromHere: 'hwf.ui.runFromHere',
  answerApproval: 'hwf.ui.answerApproval',
  respondAgent: 'hwf.ui.respondAgent',
  sendResponse: 'hwf.ui.sendResponse',
  cancelRun: 'hwf.ui.cancelRun',
  resumeRun: 'hwf.ui.resumeRun',
  openRun: 'hwf.ui.openRun',
  runAgain: 'hwf.ui.runAgain',
  refreshRuns: 'hwf.ui.refreshRuns',
  showLog: 'hwf.ui.showLog',
  restartServer: 'hwf.restartServer',
  openCanvas: 'hwf.ui.openCanvas',
  /** Ctrl+Z / Ctrl+Shift+Z that reached the workbench while a canvas was the active editor (its focus on the way back to it). */
  canvasUndo: 'hwf.ui.canvasUndo',
  canvasRedo: 'hwf.ui.canvasRedo',
  showRunOnCanvas: 'hwf.ui.showRunOnCanvas',
  filterRuns: 'hwf.ui.filterRuns',
  showStep: 'hwf.ui.showStep',
  clearRunsFilter: 'hwf.ui.clearRunsFilter',
  /** Who performs agent steps: your Hermes model, by hand, another command (agentChoice.ts). */
  chooseAgent: 'hwf.ui.chooseAgent',
} as const;

/** Context keys used in package.json `when` clauses. */
export const ContextKey = {
  isDesign: 'hwf.isDesign',
  isResponseDocument: 'hwf.isResponseDocument',
  runsFiltered: 'hwf.runsFiltered',
} as const;
