/**
 * The Hermes dashboard tab (`visual-workflow` plugin, manifest in
 * hwf_lsp/hermes/dashboard/): a design picker, Save and Discard, and the canvas with the
 * fetch host (which keeps the draft, in the browser's sessionStorage too, so leaving the
 * tab loses nothing; the routes compute every edit). The
 * host SPA gives us `window.__HERMES_PLUGIN_SDK__` (its React, `fetchJSON` with the
 * session token); the canvas renders with the React bundled here, in its own root
 * inside the host's component, so the host's React version does not matter.
 */
import '@xyflow/react/dist/style.css';
import '../webview/canvas.css';
import './dashboard.css';
import { useEffect, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Canvas } from '../webview/Canvas';
import { DashboardHost, dashboardHost, DesignEntry, DraftState, FetchJSON, listDesigns, routeError } from './dashboardHost';
import { DraftStore, draftStore } from './draftStore';
import type { CanvasMessage, Host } from '../model/protocol';

interface HostReact {
  createElement(type: string, props: Record<string, unknown>): unknown;
  useRef<T>(value: T): { current: T };
  useEffect(effect: () => void | (() => void), deps: unknown[]): void;
}

declare global {
  interface Window {
    __HERMES_PLUGIN_SDK__?: { React: HostReact; fetchJSON?: FetchJSON };
    __HERMES_PLUGINS__?: { register(name: string, component: unknown): void };
    __HERMES_SESSION_TOKEN__?: string;
  }
}

/** The SDK's fetchJSON, else fetch with the session token header (same contract). */
function fetcher(): FetchJSON {
  const sdk = window.__HERMES_PLUGIN_SDK__;
  if (sdk?.fetchJSON) {
    return sdk.fetchJSON;
  }
  return async (path, init) => {
    const response = await fetch(path, {
      ...init,
      credentials: 'include',
      headers: { ...(init?.headers ?? {}), 'X-Hermes-Session-Token': window.__HERMES_SESSION_TOKEN__ ?? '' },
    });
    if (!response.ok) {
      throw new Error(`${response.status}: ${await response.text()}`);
    }
    return response.json();
  };
}

/** Export in the browser: the image the canvas drew, downloaded as `<design>.png` / `.svg`. */
function withDownloads<T extends Host>(host: T, name: string): T {
  return {
    ...host,
    post: (m: CanvasMessage) => {
      if (m.type !== 'export') {
        host.post(m);
        return;
      }
      const link = document.createElement('a');
      link.href = m.format === 'png' ? m.data : URL.createObjectURL(new Blob([m.data], { type: 'image/svg+xml' }));
      link.download = `${name}.${m.format}`;
      link.click();
    },
  };
}

/** Save and Discard, what the draft is (unsaved, with defects), and a refused Save's way out. */
function DraftBar({ host, name }: { host: DashboardHost; name: string }) {
  const [draft, setDraft] = useState<DraftState>({ dirty: false });
  const [busy, setBusy] = useState(false);
  useEffect(() => host.onDraft(setDraft), [host]);
  const work = (action: () => Promise<unknown>) => {
    setBusy(true);
    void action().finally(() => setBusy(false));
  };
  const state = draft.valid === false ? 'unsaved, with defects' : 'unsaved';
  if (draft.broken) {
    // not "Saved": the stored file does not parse, and nothing here can be saved over it
    return <span className="hwf-broken" role="alert">{draft.broken}</span>;
  }
  return (
    <>
      <button
        className="hwf-save hwf-primary"
        disabled={!draft.dirty || busy}
        title={draft.dirty ? 'Save the design (the store validates it again)' : 'No unsaved changes'}
        onClick={() => work(() => host.save())}
      >
        {draft.dirty ? 'Save' : 'Saved'}
      </button>
      {draft.dirty && (
        <button
          className="hwf-discard"
          disabled={busy}
          title="Drop the unsaved changes and show the stored design"
          onClick={() => window.confirm(`Discard your unsaved changes to ${name}?`) && work(() => host.discard())}
        >
          Discard
        </button>
      )}
      {draft.dirty && <span className="hwf-draft-state" role="status">{draft.kept === false ? `${state} (this browser will not keep it if you leave)` : state}</span>}
      {draft.conflict && (
        <div className="hwf-conflict" role="alert">
          <span>{draft.conflict}</span>
          <button className="hwf-conflict-reload" disabled={busy} onClick={() => work(() => host.discard())}>Reload stored design</button>
          <button className="hwf-conflict-overwrite" disabled={busy} onClick={() => work(() => host.overwrite())}>Overwrite with mine</button>
        </div>
      )}
    </>
  );
}

/** The browser's storage of one kind, if this page may use it (a sandbox or a policy may refuse). */
function browserStorage(kind: 'localStorage' | 'sessionStorage'): Storage | undefined {
  try {
    return window[kind] ?? undefined;
  } catch {
    return undefined;
  }
}

function DashboardApp({ fetchJSON, drafts }: { fetchJSON: FetchJSON; drafts: DraftStore }) {
  const [designs, setDesigns] = useState<DesignEntry[]>([]);
  const [name, setName] = useState<string>('');
  const [error, setError] = useState('');
  useEffect(() => {
    listDesigns(fetchJSON).then((list) => {
      setDesigns(list);
      const last = drafts.lastDesign(); // coming back: the design left open
      setName((current) => current || (list.some((d) => d.name === last) ? last! : list[0]?.name) || '');
    }, (e) => setError(routeError(e)));
  }, [fetchJSON, drafts]);
  const host = useMemo(() => (name ? withDownloads(dashboardHost(name, fetchJSON, { storage: browserStorage('localStorage'), drafts }), name) : undefined), [name, fetchJSON, drafts]);
  useEffect(() => () => host?.dispose(), [host]);
  // The draft is kept in this browser tab while the tab is left; closing or reloading the page asks first.
  const [draft, setDraft] = useState<DraftState>({ dirty: false });
  const [unsaved, setUnsaved] = useState<string[]>([]);
  useEffect(() => host?.onDraft((d) => {
    setDraft(d);
    setUnsaved(drafts.names());
  }), [host, drafts]);
  useEffect(() => {
    if (!draft.dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [draft.dirty]);
  const pick = (next: string) => {
    if (!draft.dirty || draft.kept !== false || window.confirm(`Discard the unsaved changes to ${name}? This browser will not keep them.`)) {
      drafts.rememberDesign(next);
      setDraft({ dirty: false });
      setName(next);
    }
  };
  const picker = (
    <select className="hwf-design-picker" aria-label="Design" value={name} onChange={(e) => pick(e.target.value)}>
      {designs.map((d) => (
        <option key={d.name} value={d.name}>{d.name}{d.error ? ' (unreadable)' : unsaved.includes(d.name) ? ' (unsaved)' : ''}</option>
      ))}
    </select>
  );
  if (error) {
    return <div className="hwf-canvas hwf-dashboard-error" role="alert">Workflows: {error}</div>;
  }
  if (!host) {
    return <div className="hwf-canvas"><div className="hwf-empty">{designs.length ? 'Pick a design.' : 'No stored designs yet (workflow-designs/).'}</div></div>;
  }
  return <Canvas key={name} host={host} header={<>{picker}<DraftBar host={host} name={name} /></>} />;
}

function register(): void {
  const sdk = window.__HERMES_PLUGIN_SDK__;
  const plugins = window.__HERMES_PLUGINS__;
  if (!sdk || !plugins) {
    return;
  }
  const R = sdk.React;
  const fetchJSON = fetcher();
  const drafts = draftStore(browserStorage('sessionStorage'));
  // A kept draft outlives the tab's component but not the browser tab: closing or reloading
  // the page asks first from any dashboard page, not only while the tab is shown.
  window.addEventListener('beforeunload', (e) => {
    if (drafts.names().length > 0) e.preventDefault();
  });
  /** The host's component: a div the canvas mounts its own React root into. */
  function WorkflowsTab() {
    const ref = R.useRef<HTMLDivElement | null>(null);
    R.useEffect(() => {
      const root = createRoot(ref.current!);
      root.render(<DashboardApp fetchJSON={fetchJSON} drafts={drafts} />);
      return () => root.unmount();
    }, []);
    return R.createElement('div', { ref, className: 'hwf-dashboard' });
  }
  plugins.register('visual-workflow', WorkflowsTab);
}

register();
