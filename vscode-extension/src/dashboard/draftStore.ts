/**
 * What the dashboard tab remembers across being left: each design's unsaved draft and the
 * design last open. The host's routing unmounts the tab on every page change, and a
 * reload starts it afresh, so a draft held only in memory would be lost on the way.
 *
 * It is kept in the browser's sessionStorage, not localStorage: that lives as long as the
 * browser tab, reloads included, and two tabs editing one design each keep their own
 * draft instead of overwriting each other's. A kept draft is what the tab shows (its
 * text, graph and validity, so it is drawn again without a round trip) and the revision
 * of the stored copy it was made from (Save's `base`). No DOM here (unit tested).
 */
import { asGraphView, GraphView } from '../model/graphModel';

/** The part of the browser's Storage used. */
export interface KeyValueStorage {
  readonly length: number;
  key(index: number): string | null;
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface KeptDraft {
  text: string;
  graph: GraphView;
  valid?: boolean;
  /** The stored copy's revision when the draft was made; null: not known (an older server). */
  base: string | null;
  /** That copy's text, when known: a refused Save says what another writer changed since. */
  baseText?: string;
  /** The ids given to a node in this draft, with when (ms): no older run ran those nodes. */
  born?: Record<string, number>;
}

export interface DraftStore {
  load(name: string): KeptDraft | undefined;
  /** False when the browser would not keep it (no storage, or full): the draft lives in this page only. */
  keep(name: string, draft: KeptDraft): boolean;
  drop(name: string): void;
  /** The designs with a kept draft. */
  names(): string[];
  lastDesign(): string | undefined;
  rememberDesign(name: string): void;
}

const DRAFT_PREFIX = 'hwf-draft:';
const LAST_DESIGN = 'hwf-last-design';

export function draftStore(storage: KeyValueStorage | undefined): DraftStore {
  const attempt = <T>(work: () => T, otherwise: T): T => {
    try {
      return storage ? work() : otherwise;
    } catch {
      return otherwise; // a sandbox or a policy refuses storage, or it is full
    }
  };
  return {
    load: (name) => attempt(() => keptDraft(JSON.parse(storage!.getItem(DRAFT_PREFIX + name) ?? 'null')), undefined),
    keep: (name, draft) => attempt(() => {
      storage!.setItem(DRAFT_PREFIX + name, JSON.stringify(draft));
      return true;
    }, false),
    drop: (name) => attempt(() => storage!.removeItem(DRAFT_PREFIX + name), undefined),
    names: () => attempt(() => {
      const names: string[] = [];
      for (let i = 0; i < storage!.length; i += 1) {
        const key = storage!.key(i);
        if (key?.startsWith(DRAFT_PREFIX)) names.push(key.slice(DRAFT_PREFIX.length));
      }
      return names.sort();
    }, [] as string[]),
    lastDesign: () => attempt(() => storage!.getItem(LAST_DESIGN) ?? undefined, undefined),
    rememberDesign: (name) => attempt(() => storage!.setItem(LAST_DESIGN, name), undefined),
  };
}

/** A kept draft read back, if it is one (storage is the user's to change). */
function keptDraft(value: unknown): KeptDraft | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const graph = asGraphView(v.graph);
  if (typeof v.text !== 'string' || !graph) return undefined;
  return {
    text: v.text,
    graph,
    ...(typeof v.valid === 'boolean' ? { valid: v.valid } : {}),
    base: typeof v.base === 'string' ? v.base : null,
    ...(typeof v.baseText === 'string' ? { baseText: v.baseText } : {}),
    ...(v.born !== undefined ? { born: bornOf(v.born) } : {}),
  };
}

/** Ids and times (`{id: ms}`), if that is what `value` holds (storage is the user's to change). */
export function bornOf(value: unknown): Record<string, number> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter(([, at]) => typeof at === 'number'));
}
