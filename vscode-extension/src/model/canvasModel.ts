/**
 * The pure parts of the canvas panel: its HTML with a strict Content-Security-Policy,
 * the design name its runs are filed under, and the bookkeeping of edit → redraw
 * latency. No VS Code API (unit tested with node's test runner).
 */
import type { GraphView } from './graphModel';

export interface CanvasAssets {
  /** `webview.cspSource`. */
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

/**
 * The webview's page: only our bundled script (by nonce) and stylesheet (by the
 * webview's own source) load; no remote anything, no inline script, no eval.
 */
export function canvasHtml({ cspSource, nonce, scriptUri, styleUri }: CanvasAssets): string {
  const csp = [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${styleUri}">
<title>Hermes Workflow canvas</title>
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${scriptUri}"></script>
</body>
</html>`;
}

/** A nonce of 32 characters from [A-Za-z0-9], from `random` (crypto in the extension). */
export function makeNonce(random: (n: number) => Uint8Array): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(random(32), (b) => chars[b % chars.length]).join('');
}

/**
 * The name a design's runs are filed under: its `name`, else the file stem made legal
 * (the engine's `design_name_for`), so the canvas finds the runs the server writes.
 */
export function designNameFor(graph: Pick<GraphView, 'name'> | undefined, fileName: string): string {
  if (graph?.name) {
    return graph.name;
  }
  const base = fileName.replace(/^.*[\\/]/, '').replace(/\.hwf\.json$|\.json$/i, '');
  const legal = base.toLowerCase().replace(/[^a-z0-9_.-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 64);
  return legal || 'design';
}

/**
 * Why a run request from the webview is refused, else undefined: a request naming a run
 * (answer, respond, cancel) acts only on a run of this panel's design (`runName`: the
 * name of that run in the runs list, undefined for a run the list does not hold). The
 * webview is our code, but its messages are data: one must not cancel another design's run.
 */
export function foreignRun(request: { action: string; runId?: string }, runName: string | null | undefined, design: string): string | undefined {
  if (request.runId === undefined) {
    return undefined;
  }
  if (runName === undefined) {
    return `run ${request.runId} is not a known run`;
  }
  return runName === design ? undefined : `run ${request.runId} is a run of ${JSON.stringify(runName)}, not of this design (${JSON.stringify(design)})`;
}

/**
 * Document version → when its change happened, until the canvas has drawn the graph of
 * that version (or a newer one): `drawn` gives the edit → redraw latency of the newest.
 */
export class RedrawClock {
  private readonly changes = new Map<number, number>();
  private readonly sent = new Map<number, { version: number; at?: number }>();

  changed(version: number, at: number): void {
    this.changes.set(version, at);
  }

  /** The graph of `version` went to the canvas as message `seq` (its answer came at `at`). */
  sentAs(seq: number, version: number | null, at?: number): void {
    if (version !== null) {
      this.sent.set(seq, { version, at });
    }
  }

  /**
   * The canvas drew message `seq` at `at`: ms since the change of its version, if known,
   * and `graphMs`, of them until the server's graph came (the rest: the webview's message and draw).
   */
  drawn(seq: number, at: number): { version: number; ms: number; graphMs?: number } | undefined {
    const sent = this.sent.get(seq);
    this.sent.delete(seq);
    if (sent === undefined) {
      return undefined;
    }
    const { version } = sent;
    const changedAt = this.changes.get(version);
    for (const v of [...this.changes.keys()]) {
      if (v <= version) {
        this.changes.delete(v);
      }
    }
    if (changedAt === undefined) return undefined;
    return sent.at === undefined ? { version, ms: at - changedAt } : { version, ms: at - changedAt, graphMs: sent.at - changedAt };
  }
}
