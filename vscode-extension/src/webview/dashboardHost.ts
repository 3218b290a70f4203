/**
 * The canvas's host in the Hermes dashboard tab: the same messages as in VS Code, answered
 * with fetch to the plugin's routes (docs/hermes.md, "Dashboard routes") instead of
 * postMessage. Read-only: designs and runs are shown, only answer and respond act.
 * No DOM and no React here (unit tested with a fake fetch).
 */
import { asRunSummary, RunSummary, runsOf, stepsOfRun } from '../common/runModel';
import { asGraphView } from './graphModel';
import type { CanvasMessage, Host, HostMessage } from './protocol';

export const ROUTES_BASE = '/api/plugins/visual-workflow';

/** `SDK.fetchJSON`: a path → the parsed answer; throws `Error("<status>: <body>")` otherwise. */
export type FetchJSON = (path: string, init?: { method?: string; body?: string; headers?: Record<string, string> }) => Promise<unknown>;

export interface DesignEntry {
  name: string;
  nodes?: number | null;
  updated_at?: string | null;
  error?: string;
}

export async function listDesigns(fetchJSON: FetchJSON): Promise<DesignEntry[]> {
  const answer = (await fetchJSON(`${ROUTES_BASE}/designs`)) as { designs?: unknown };
  return Array.isArray(answer?.designs)
    ? answer.designs.filter((d): d is DesignEntry => typeof d === 'object' && d !== null && typeof (d as DesignEntry).name === 'string')
    : [];
}

/** The error text of a failed route: the body's `error` when it is the routes' JSON. */
export function routeError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const body = /^\d+: (.*)$/s.exec(text)?.[1];
  try {
    const parsed = body ? JSON.parse(body) : undefined;
    return typeof parsed?.error === 'string' ? parsed.error : text;
  } catch {
    return text;
  }
}

export interface DashboardHost extends Host {
  dispose(): void;
}

/**
 * A host for design `name`: on `ready` it sends the graph and the newest run, then polls
 * the newest run every `pollMs` (the routes have no push channel).
 */
export function dashboardHost(name: string, fetchJSON: FetchJSON, { pollMs = 1000, schedule = setTimeout, cancel = clearTimeout } = {}): DashboardHost {
  const listeners = new Set<(m: HostMessage) => void>();
  const emit = (m: HostMessage) => listeners.forEach((l) => l(m));
  const design = encodeURIComponent(name);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let disposed = false;
  let seq = 0;
  let lastRun = '';

  const showRun = (run: RunSummary | undefined) => {
    const key = JSON.stringify(run ?? null);
    if (key !== lastRun) {
      lastRun = key;
      emit({ type: 'run', run: run ?? null, steps: run ? stepsOfRun(undefined, run) : [] });
    }
  };
  const poll = async () => {
    try {
      showRun(runsOf(await fetchJSON(`${ROUTES_BASE}/runs?design=${design}&limit=1`))[0]);
    } catch (error) {
      emit({ type: 'notice', text: `runs: ${routeError(error)}` });
    }
    if (!disposed) {
      timer = schedule(() => void poll(), pollMs);
    }
  };
  const loadGraph = async () => {
    try {
      const graph = asGraphView(await fetchJSON(`${ROUTES_BASE}/designs/${design}/graph`));
      if (graph) {
        seq += 1;
        emit({ type: 'graph', graph, seq });
      }
    } catch (error) {
      emit({ type: 'notice', text: `design ${name}: ${routeError(error)}` });
    }
  };
  const act = async (path: string, body: unknown) => {
    try {
      const run = asRunSummary(await fetchJSON(`${ROUTES_BASE}${path}`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'Content-Type': 'application/json' },
      }));
      emit({ type: 'notice', text: '' });
      showRun(run);
    } catch (error) {
      emit({ type: 'notice', text: routeError(error) });
    }
  };

  const onMessage = async (m: CanvasMessage) => {
    if (m.type === 'ready') {
      emit({ type: 'config', config: { editable: false, runsEnabled: false, answerable: true } });
      await loadGraph();
      await poll();
    } else if (m.type === 'run' && m.action === 'answer') {
      await act(`/runs/${encodeURIComponent(m.runId)}/answer`, { choice: m.choice });
    } else if (m.type === 'run' && m.action === 'respond') {
      await act(`/runs/${encodeURIComponent(m.runId)}/respond`, { output: m.output });
    }
    // Edits, reveal, start and run from here are not offered in the dashboard.
  };

  return {
    post: (m) => void onMessage(m),
    onMessage: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose: () => {
      disposed = true;
      if (timer !== undefined) cancel(timer);
      listeners.clear();
    },
  };
}
