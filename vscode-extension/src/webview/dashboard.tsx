/**
 * The Hermes dashboard tab (`visual-workflow` plugin, manifest in
 * hwf_lsp/hermes/dashboard/): a design picker, Save, and the canvas with the fetch host
 * (which keeps the draft; the routes compute every edit). The
 * host SPA gives us `window.__HERMES_PLUGIN_SDK__` (its React, `fetchJSON` with the
 * session token); the canvas renders with the React bundled here, in its own root
 * inside the host's component, so the host's React version does not matter.
 */
import '@xyflow/react/dist/style.css';
import './canvas.css';
import './dashboard.css';
import { useEffect, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Canvas } from './Canvas';
import { DashboardHost, dashboardHost, DesignEntry, DraftState, FetchJSON, listDesigns, routeError } from './dashboardHost';
import type { CanvasMessage, Host } from './protocol';

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

/** Save, and what the draft is: unsaved, with defects. */
function SaveButton({ host }: { host: DashboardHost }) {
  const [draft, setDraft] = useState<DraftState>({ dirty: false });
  const [saving, setSaving] = useState(false);
  useEffect(() => host.onDraft(setDraft), [host]);
  return (
    <>
      <button
        className="hwf-save hwf-primary"
        disabled={!draft.dirty || saving}
        title={draft.dirty ? 'Save the design (the store validates it again)' : 'No unsaved changes'}
        onClick={() => {
          setSaving(true);
          void host.save().finally(() => setSaving(false));
        }}
      >
        {draft.dirty ? 'Save' : 'Saved'}
      </button>
      {draft.dirty && <span className="hwf-draft-state" role="status">{draft.valid === false ? 'unsaved, with defects' : 'unsaved'}</span>}
    </>
  );
}

/** The browser's localStorage, if this page may use it (a sandbox or a policy may refuse). */
function browserStorage(): Storage | undefined {
  try {
    return window.localStorage ?? undefined;
  } catch {
    return undefined;
  }
}

function DashboardApp({ fetchJSON }: { fetchJSON: FetchJSON }) {
  const [designs, setDesigns] = useState<DesignEntry[]>([]);
  const [name, setName] = useState<string>('');
  const [error, setError] = useState('');
  useEffect(() => {
    listDesigns(fetchJSON).then((list) => {
      setDesigns(list);
      setName((current) => current || list[0]?.name || '');
    }, (e) => setError(routeError(e)));
  }, [fetchJSON]);
  const host = useMemo(() => (name ? withDownloads(dashboardHost(name, fetchJSON, { storage: browserStorage() }), name) : undefined), [name, fetchJSON]);
  useEffect(() => () => host?.dispose(), [host]);
  // An unsaved draft lives only in this page: leaving it or picking another design asks first.
  const [dirty, setDirty] = useState(false);
  useEffect(() => host?.onDraft((d) => setDirty(d.dirty)), [host]);
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);
  const pick = (next: string) => {
    if (!dirty || window.confirm(`Discard the unsaved changes to ${name}?`)) {
      setDirty(false);
      setName(next);
    }
  };
  const picker = (
    <select className="hwf-design-picker" aria-label="Design" value={name} onChange={(e) => pick(e.target.value)}>
      {designs.map((d) => (
        <option key={d.name} value={d.name}>{d.name}{d.error ? ' (unreadable)' : ''}</option>
      ))}
    </select>
  );
  if (error) {
    return <div className="hwf-canvas hwf-dashboard-error" role="alert">Workflows: {error}</div>;
  }
  if (!host) {
    return <div className="hwf-canvas"><div className="hwf-empty">{designs.length ? 'Pick a design.' : 'No stored designs yet (workflow-designs/).'}</div></div>;
  }
  return <Canvas key={name} host={host} header={<>{picker}<SaveButton host={host} /></>} />;
}

function register(): void {
  const sdk = window.__HERMES_PLUGIN_SDK__;
  const plugins = window.__HERMES_PLUGINS__;
  if (!sdk || !plugins) {
    return;
  }
  const R = sdk.React;
  const fetchJSON = fetcher();
  /** The host's component: a div the canvas mounts its own React root into. */
  function WorkflowsTab() {
    const ref = R.useRef<HTMLDivElement | null>(null);
    R.useEffect(() => {
      const root = createRoot(ref.current!);
      root.render(<DashboardApp fetchJSON={fetchJSON} />);
      return () => root.unmount();
    }, []);
    return R.createElement('div', { ref, className: 'hwf-dashboard' });
  }
  plugins.register('visual-workflow', WorkflowsTab);
}

register();
