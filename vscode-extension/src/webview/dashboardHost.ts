/**
 * The canvas's host in the Hermes dashboard tab: the same messages as in VS Code, answered
 * with fetch to the plugin's routes (docs/hermes.md, "Dashboard routes") instead of
 * postMessage. The tab has no text editor, so the host keeps the design's draft text:
 * each canvas edit is sent with it to `POST /designs/{name}/edit`, where the editor's edit
 * code computes the new text, its graph and the validator's defects (no edit logic here).
 * Save puts the draft through the store (refused with its defects); runs start from the
 * stored design; answer, respond and cancel act on the shown run. The newest run is
 * polled with the runs directory's stamp, so an idle poll reads no run file.
 * No DOM and no React here (unit tested with a fake fetch).
 */
import { asRunSummary, RunSummary, runsOf, stepsOfRun } from '../common/runModel';
import { asGraphView, GraphView } from './graphModel';
import { editFailureText, positionEntries } from './protocol';
import type { CanvasMessage, EditRequest, Host, HostMessage, PositionEntry, RunRequest } from './protocol';

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

/** The parsed JSON body of a failed route (`{error, argument?, defects?}`), if it is one. */
function routeBody(error: unknown): { error?: unknown; defects?: unknown } | undefined {
  const text = error instanceof Error ? error.message : String(error);
  const body = /^\d+: (.*)$/s.exec(text)?.[1];
  try {
    const parsed = body ? JSON.parse(body) : undefined;
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The error text of a failed route: the body's `error` when it is the routes' JSON. */
export function routeError(error: unknown): string {
  const parsed = routeBody(error);
  return typeof parsed?.error === 'string' ? parsed.error : error instanceof Error ? error.message : String(error);
}

/** What the tab's toolbar shows of the draft. */
export interface DraftState {
  /** Edited since the last save (or load). */
  dirty: boolean;
  /** The validator's verdict on the last edit; undefined for the stored text (it was saved valid, or by hand). */
  valid?: boolean;
}

export interface DashboardHost extends Host {
  /** Saves the draft through the store; false (with a notice) when refused or failed. */
  save(): Promise<boolean>;
  onDraft(listener: (state: DraftState) => void): () => void;
  dispose(): void;
}

/** The part of the browser's localStorage used. */
interface PositionStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

interface Options {
  pollMs?: number;
  schedule?: (f: () => void, ms: number) => unknown;
  cancel?: (timer: unknown) => void;
  /** Where node positions are kept, per design (the browser's localStorage). */
  storage?: PositionStorage;
}

interface Version {
  /** null: the stored file's text (never edited here). */
  text: string | null;
  graph: GraphView;
  valid?: boolean;
}

/**
 * A host for design `name`: on `ready` it sends the stored positions, the graph and the
 * newest run, then polls the newest run every `pollMs` (the routes have no push channel).
 */
export function dashboardHost(name: string, fetchJSON: FetchJSON, { pollMs = 1000, schedule = setTimeout, cancel = clearTimeout as (t: unknown) => void, storage }: Options = {}): DashboardHost {
  const listeners = new Set<(m: HostMessage) => void>();
  const draftListeners = new Set<(s: DraftState) => void>();
  const emit = (m: HostMessage) => listeners.forEach((l) => l(m));
  const design = encodeURIComponent(name);
  const positionsKey = `hwf-positions:${name}`;
  let timer: unknown;
  let disposed = false;
  let seq = 0;
  let lastRun = '';
  let stamp: string | null = null;
  /** The draft: what is drawn, and the versions before and after it (undo / redo). */
  let current: Version | undefined;
  let savedText: string | null = null;
  const undone: Version[] = [];
  const redone: Version[] = [];
  /** Edits, saves and runs one at a time: each edit starts from the text the last one made. */
  let queue: Promise<void> = Promise.resolve();
  const serial = (work: () => Promise<void>) => {
    queue = queue.then(work, work);
    return queue;
  };

  const post = (path: string, body: unknown, method = 'POST') => fetchJSON(`${ROUTES_BASE}${path}`, {
    method,
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json' },
  });
  const draftState = (): DraftState => ({ dirty: current !== undefined && current.text !== savedText, valid: current?.valid });
  const show = (version: Version) => {
    current = version;
    seq += 1;
    emit({ type: 'graph', graph: version.graph, seq });
    const state = draftState();
    draftListeners.forEach((l) => l(state));
  };

  const showRun = (run: RunSummary | undefined) => {
    const key = JSON.stringify(run ?? null);
    if (key !== lastRun) {
      lastRun = key;
      emit({ type: 'run', run: run ?? null, steps: run ? stepsOfRun(undefined, run) : [] });
    }
  };
  const poll = async () => {
    try {
      const since = stamp ? `&since=${encodeURIComponent(stamp)}` : '';
      const answer = (await fetchJSON(`${ROUTES_BASE}/runs?design=${design}&limit=1${since}`)) as { unchanged?: boolean; stamp?: unknown };
      if (!answer?.unchanged) {
        showRun(runsOf(answer)[0]);
      }
      stamp = typeof answer?.stamp === 'string' ? answer.stamp : null;
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
        savedText = null;
        show({ text: null, graph });
      }
    } catch (error) {
      emit({ type: 'notice', text: `design ${name}: ${routeError(error)}` });
    }
  };

  const edit = async (request: EditRequest) => {
    if (!current) return;
    try {
      const fields: Record<string, unknown> = { ...request };
      delete fields.type;
      const answer = (await post(`/designs/${design}/edit`, current.text === null ? fields : { ...fields, text: current.text })) as { text?: unknown; graph?: unknown; valid?: unknown };
      const graph = asGraphView(answer?.graph);
      if (typeof answer?.text !== 'string' || !graph) throw new Error('the edit route answered no text and graph');
      undone.push(current);
      redone.length = 0;
      emit({ type: 'notice', text: '' });
      show({ text: answer.text, graph, valid: answer.valid === true });
    } catch (error) {
      emit({ type: 'notice', text: editFailureText(request, routeError(error)) });
    }
  };
  const travel = async (from: Version[], to: Version[]) => {
    const version = from.pop();
    if (version && current) {
      to.push(current);
      show(version);
    }
  };

  const save = async (): Promise<boolean> => {
    if (!current || current.text === null || current.text === savedText) return true;
    const text = current.text;
    try {
      await post(`/designs/${design}`, { design: JSON.parse(text) }, 'PUT');
      savedText = text;
      stamp = null; // a run's summary may read the stored design: list it afresh
      emit({ type: 'notice', text: `Saved ${name}.` });
      show(current);
      return true;
    } catch (error) {
      const defects = routeBody(error)?.defects;
      // contract-1 defects: {node?, field?, msg}
      const reasons = Array.isArray(defects) ? defects.flatMap((d) => (typeof d?.msg === 'string' ? [typeof d.node === 'string' ? `${d.node}: ${d.msg}` : d.msg] : [])) : [];
      emit({ type: 'notice', text: `Not saved: ${routeError(error)}${reasons.length ? ` (${reasons.join('; ')})` : ''}` });
      return false;
    }
  };

  const act = async (path: string, body: unknown) => {
    try {
      const run = asRunSummary(await post(path, body));
      emit({ type: 'notice', text: '' });
      showRun(run);
    } catch (error) {
      emit({ type: 'notice', text: routeError(error) });
    }
  };
  const run = async (request: RunRequest) => {
    const runId = encodeURIComponent('runId' in request ? request.runId : '');
    switch (request.action) {
      case 'start':
      case 'fromHere':
        if (draftState().dirty) {
          emit({ type: 'notice', text: 'Save the design first: a run follows the stored design.' });
          return;
        }
        emit({ type: 'notice', text: request.action === 'start' ? 'Starting a run…' : `Running from ${request.id}…` });
        return act(`/designs/${design}/runs`, request.action === 'start' ? {} : { from_node: request.id });
      case 'answer':
        return act(`/runs/${runId}/answer`, { choice: request.choice });
      case 'respond':
        return act(`/runs/${runId}/respond`, { output: request.output });
      case 'cancel':
        return act(`/runs/${runId}/cancel`, {});
    }
  };

  const onMessage = async (m: CanvasMessage) => {
    switch (m.type) {
      case 'ready': {
        emit({ type: 'config', config: { editable: true, runsEnabled: true, answerable: true } });
        const stored = storedPositions(storage, positionsKey);
        if (stored) emit({ type: 'positions', entries: stored });
        await serial(loadGraph);
        await poll();
        return;
      }
      case 'edit':
        return serial(() => edit(m));
      case 'undo':
        return serial(() => travel(undone, redone));
      case 'redo':
        return serial(() => travel(redone, undone));
      case 'run':
        return serial(() => run(m));
      case 'positions':
        try {
          storage?.setItem(positionsKey, JSON.stringify(m.entries));
        } catch {
          // full or refused: positions are a convenience, the canvas lays nodes out again
        }
        return;
    }
    // reveal (no text to reveal), step details and exports are the tab's or nobody's.
  };

  return {
    post: (m) => void onMessage(m),
    onMessage: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    save: () => {
      let result = false;
      return serial(async () => {
        result = await save();
      }).then(() => result);
    },
    onDraft: (listener) => {
      draftListeners.add(listener);
      listener(draftState());
      return () => draftListeners.delete(listener);
    },
    dispose: () => {
      disposed = true;
      if (timer !== undefined) cancel(timer);
      listeners.clear();
      draftListeners.clear();
    },
  };
}

function storedPositions(storage: PositionStorage | undefined, key: string): PositionEntry[] | undefined {
  try {
    const value: unknown = JSON.parse(storage?.getItem(key) ?? 'null');
    return positionEntries(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
