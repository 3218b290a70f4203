/**
 * The canvas's host in the Hermes dashboard tab: the same messages as in VS Code, answered
 * with fetch to the plugin's routes (docs/hermes.md, "Dashboard routes") instead of
 * postMessage. The tab has no text editor, so the host keeps the design's draft text:
 * each canvas edit is sent with it to `POST /designs/{name}/edit`, where the editor's edit
 * code computes the new text, its graph and the validator's defects (no edit logic here).
 * The draft is kept in the browser (`draftStore.ts`) on every change, so leaving the tab,
 * picking another design or reloading the page finds it again. Save puts the draft
 * through the store (refused with its defects) with the revision of the stored copy the
 * draft was made from, so a copy another writer stored since is never overwritten
 * unasked (409: the tab offers to reload the stored copy or to overwrite it on purpose).
 * The inspector's expression completion asks `POST /designs/{name}/complete` with the
 * draft (the editor's completion code and the newest run, as in VS Code).
 * Runs start from the stored design; answer, respond and cancel act on the shown run.
 * The newest run is polled with the runs directory's stamp, so an idle poll reads no run
 * file. No DOM and no React here (unit tested with a fake fetch).
 */
import { asRunSummary, RunSummary, runsOf, stepsOfRun } from '../model/runModel';
import type { DraftStore } from './draftStore';
import { asGraphView, defectText, GraphView } from '../model/graphModel';
import { storeChanges } from './storeChanges';
import { bornOf } from './draftStore';
import { editFailureText, expressionItems, positionEntries } from '../model/protocol';
import type { CanvasMessage, EditRequest, Host, HostMessage, PositionEntry, RunRequest } from '../model/protocol';

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

/** The parsed JSON body of a failed route (`{error, argument?, defects?, revision?}`), if it is one. */
function routeBody(error: unknown): { error?: unknown; defects?: unknown; revision?: unknown } | undefined {
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
  /** False when the browser would not keep the unsaved draft: leaving the page loses it. */
  kept?: boolean;
  /** Why Save was refused because another writer changed the stored design since (409), and what they changed. */
  conflict?: string;
  /** The stored text is not valid JSON: where, and what the user can do (nothing here is saved). */
  broken?: string;
}

export interface DashboardHost extends Host {
  /** Saves the draft through the store; false (with a notice) when refused or failed. */
  save(): Promise<boolean>;
  /** After a conflict: saves the draft over the stored copy the conflict named. */
  overwrite(): Promise<boolean>;
  /** Drops the draft (and its undo history) and shows the stored design. */
  discard(): Promise<void>;
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
  /** Where the unsaved draft is kept while the tab is left (the browser's sessionStorage). */
  drafts?: DraftStore;
  /** The clock that dates a node added here (ms), against a run's `created_at`. */
  now?: () => number;
}

interface Version {
  /** null: the stored file's text (never edited here). */
  text: string | null;
  graph: GraphView;
  valid?: boolean;
  /** The ids given to a node here (added, or renamed to), with when (ms): a run started before never ran that node. */
  born?: Record<string, number>;
}

/**
 * A host for design `name`: on `ready` it sends the stored positions, the graph and the
 * newest run, then polls the newest run every `pollMs` (the routes have no push channel).
 */
export function dashboardHost(name: string, fetchJSON: FetchJSON, { pollMs = 1000, schedule = setTimeout, cancel = clearTimeout as (t: unknown) => void, storage, drafts, now = Date.now }: Options = {}): DashboardHost {
  const listeners = new Set<(m: HostMessage) => void>();
  const draftListeners = new Set<(s: DraftState) => void>();
  const emit = (m: HostMessage) => listeners.forEach((l) => l(m));
  const design = encodeURIComponent(name);
  const positionsKey = `hwf-positions:${name}`;
  /** Where the stored copy's `born` is kept (the browser's localStorage): a reload keeps the rule. */
  const bornKey = `hwf-new-nodes:${name}`;
  let timer: unknown;
  let disposed = false;
  let seq = 0;
  let lastRun = '';
  let stamp: string | null = null;
  /** The draft: what is drawn, and the versions before and after it (undo / redo). */
  let current: Version | undefined;
  let savedText: string | null = null;
  /** The revision of the stored copy the draft was made from (Save's base); null: unknown. */
  let base: string | null = null;
  /** That copy's text, if known: a conflict says what another writer changed since. */
  let baseText: string | undefined;
  /** The newest run as shown, and whether a run started here has not answered yet. */
  let shownRun: RunSummary | undefined;
  /** What was drawn of it last (a draft's change redraws it only when that changes). */
  let drawnRun = '';
  let drawnSummary: RunSummary | undefined;
  let starting = false;
  /** Set by a 409: the stored copy's revision now (null: deleted), and what to tell the user. */
  let conflict: { stored: string | null; text: string } | undefined;
  let kept = true;
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
  const dirty = () => current !== undefined && current.text !== savedText;
  const draftState = (): DraftState => {
    const broken = current?.graph.defects?.find((d) => d.code === 'json-syntax');
    return {
      dirty: dirty(),
      valid: current?.valid,
      ...(dirty() && !kept ? { kept: false } : {}),
      ...(conflict ? { conflict: conflict.text } : {}),
      ...(broken && !dirty() ? { broken: brokenText(name, defectText([broken])) } : {}),
    };
  };
  const tellDraft = () => {
    const state = draftState();
    draftListeners.forEach((l) => l(state));
  };
  /** Draws `version` and keeps it in the browser while it is unsaved (drops it once saved). */
  const show = (version: Version) => {
    current = version;
    seq += 1;
    emit({ type: 'graph', graph: version.graph, seq });
    if (dirty() && version.text !== null) {
      kept = drafts?.keep(name, { text: version.text, graph: version.graph, valid: version.valid, base, ...(baseText !== undefined ? { baseText } : {}), ...(version.born ? { born: version.born } : {}) }) ?? false;
    } else {
      drafts?.drop(name);
      kept = true;
    }
    tellDraft();
    if (lastRun) drawRun(); // a node added or undone: the run's states are drawn on the nodes it ran
  };

  /** The run's steps on the canvas, but none on a node given its id here after the run started: the run never ran it. */
  const drawRun = () => {
    const run = shownRun;
    const started = Date.parse(run?.created_at ?? '');
    const born = current?.born ?? {};
    const ran = (id: string) => !(born[id] > started) || !Number.isFinite(started);
    const steps = run ? stepsOfRun(undefined, run).filter((s) => ran(s.id)) : [];
    const key = JSON.stringify([run?.run_id, steps.map((s) => s.id)]);
    if (key !== drawnRun || run !== drawnSummary) {
      drawnRun = key;
      drawnSummary = run;
      emit({ type: 'run', run: run ?? null, steps });
    }
  };
  const showRun = (run: RunSummary | undefined) => {
    const key = JSON.stringify(run ?? null);
    if (key !== lastRun) {
      lastRun = key;
      shownRun = run;
      drawRun();
    }
  };
  /** `born` with node `id` given its id now, less what no run can need (older than the shown run: every newer run is newer too). */
  const bornNow = (born: Record<string, number> | undefined, id: string | undefined) => {
    const started = Date.parse(shownRun?.created_at ?? '');
    const kept = Object.entries(born ?? {}).filter(([key, at]) => key !== id && !(at < started));
    return Object.fromEntries(id === undefined ? kept : [...kept, [id, now()]]);
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
  /** The kept draft of this design if there is one, else the stored design. */
  const loadGraph = async () => {
    const draft = drafts?.load(name);
    if (draft) {
      savedText = null;
      base = draft.base;
      baseText = draft.baseText;
      show({ text: draft.text, graph: draft.graph, valid: draft.valid, born: draft.born });
      emit({ type: 'notice', text: `Your unsaved changes to ${name} are back: Save or Discard them.` });
      return;
    }
    try {
      const answer = await fetchJSON(`${ROUTES_BASE}/designs/${design}/graph`);
      const graph = asGraphView(answer);
      if (graph) {
        const { revision, text } = answer as { revision?: unknown; text?: unknown };
        // The stored text, when the route gives it: edits start from what is drawn, and Save sends it back edited in place.
        savedText = typeof text === 'string' && !graph.stale ? text : null;
        baseText = savedText ?? undefined;
        base = typeof revision === 'string' ? revision : null;
        show({ text: savedText, graph, born: storedBorn(storage, bornKey) });
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
      const answer = (await post(`/designs/${design}/edit`, current.text === null ? fields : { ...fields, text: current.text })) as { text?: unknown; graph?: unknown; valid?: unknown; base?: unknown };
      const graph = asGraphView(answer?.graph);
      if (typeof answer?.text !== 'string' || !graph) throw new Error('the edit route answered no text and graph');
      // An edit of the stored text was made on the copy stored now: the draft's base.
      if (current.text === null && typeof answer.base === 'string') base = answer.base;
      undone.push(current);
      redone.length = 0;
      emit({ type: 'notice', text: '' });
      const given = request.edit === 'addNode' ? (answer as { id?: unknown }).id : request.edit === 'renameNode' ? request.newId : undefined;
      show({ text: answer.text, graph, valid: answer.valid === true, born: typeof given === 'string' ? bornNow(current.born, given) : current.born });
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

  /** Saves the draft as a change of the stored copy `over` (null: unconditionally). */
  const save = async (over: string | null): Promise<boolean> => {
    if (!current || current.text === null || current.text === savedText) return true;
    const text = current.text;
    try {
      // The draft's text as it is: the store writes it so (after its checks), the file changes by the user's edits only.
      const answer = (await post(`/designs/${design}`, over === null ? { text } : { text, base: over }, 'PUT')) as { revision?: unknown };
      savedText = text;
      baseText = text;
      try {
        storage?.setItem(bornKey, JSON.stringify(bornNow(current.born, undefined)));
      } catch {
        // full or refused: after a reload an older run's state may show on a node added here
      }
      base = typeof answer?.revision === 'string' ? answer.revision : null;
      conflict = undefined;
      stamp = null; // a run's summary may read the stored design: list it afresh
      emit({ type: 'notice', text: `Saved ${name}.` });
      show(current);
      return true;
    } catch (error) {
      if (/^409: /.test(error instanceof Error ? error.message : '')) {
        const body = routeBody(error) as { revision?: unknown; text?: unknown } | undefined;
        const stored = body?.revision;
        const what = typeof stored === 'string' && typeof body?.text === 'string' && baseText !== undefined ? storeChanges(baseText, body.text) : '';
        conflict = {
          stored: typeof stored === 'string' ? stored : null,
          text: `Not saved: ${name} was ${typeof stored === 'string' ? 'changed' : 'deleted'} in the store after you opened it (by the chat, cron, hwf, an editor or another tab).${what ? ` ${what}` : ''} Reload the stored design (your changes are dropped), or overwrite it with yours.`,
        };
        emit({ type: 'notice', text: '' }); // the tab shows the conflict, with its two ways out
        tellDraft();
        return false;
      }
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
  const discard = async () => {
    drafts?.drop(name);
    undone.length = 0;
    redone.length = 0;
    conflict = undefined;
    current = undefined;
    await loadGraph();
    emit({ type: 'notice', text: `Discarded your changes: ${name} as stored.` });
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
        if (shownRun?.status === 'running') {
          emit({ type: 'notice', text: `Run ${shownRun.run_id} is running: wait for it, or cancel it.` });
          return;
        }
        emit({ type: 'notice', text: request.action === 'start' ? 'Starting a run…' : `Running from ${request.id}…` });
        starting = true;
        try {
          return await act(`/designs/${design}/runs`, request.action === 'start' ? {} : { from_node: request.id });
        } finally {
          starting = false;
        }
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
      case 'complete': {
        // not queued behind edits: it reads the draft as it is now and changes nothing
        let items: ReturnType<typeof expressionItems> = [];
        try {
          const draft = current?.text;
          const body = { id: m.id, expression: m.text, offset: m.offset };
          items = expressionItems(await post(`/designs/${design}/complete`, typeof draft === 'string' ? { ...body, text: draft } : body));
        } catch {
          // no suggestions: typing goes on
        }
        emit({ type: 'completions', request: m.request, items });
        return;
      }
      case 'undo':
        return serial(() => travel(undone, redone));
      case 'redo':
        return serial(() => travel(redone, undone));
      case 'run':
        if (starting && (m.action === 'start' || m.action === 'fromHere')) {
          // not queued: a second Start run would start a second run once the first one parks
          emit({ type: 'notice', text: 'A run is starting: wait for it, or cancel it.' });
          return;
        }
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
        result = await save(base);
      }).then(() => result);
    },
    overwrite: () => {
      let result = false;
      return serial(async () => {
        result = await save(conflict ? conflict.stored : base);
      }).then(() => result);
    },
    discard: () => serial(discard),
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

/** The words for a stored design that is not valid JSON: where, and what the user can do. */
function brokenText(name: string, where: string): string {
  return `${where}. The tab cannot edit ${name} until its file parses: fix it in a text editor (or hwf check it), then pick it again here.`;
}

/** The stored copy's `born` (see Version), as this browser kept it at the last Save. */
function storedBorn(storage: PositionStorage | undefined, key: string): Record<string, number> {
  return bornOf(parsed(storage?.getItem(key)));
}

function parsed(text: string | null | undefined): unknown {
  try {
    return JSON.parse(text ?? 'null');
  } catch {
    return undefined;
  }
}

function storedPositions(storage: PositionStorage | undefined, key: string): PositionEntry[] | undefined {
  try {
    const value: unknown = JSON.parse(storage?.getItem(key) ?? 'null');
    return positionEntries(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
