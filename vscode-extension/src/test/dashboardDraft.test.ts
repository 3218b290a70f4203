/**
 * The dashboard tab's draft across leaving the tab (draftStore.ts and the host), and Save
 * against the stored copy the draft was made from (a 409 from the routes when another
 * writer changed it since). The routes are faked; their real answers are tested in
 * tests/hermes/test_dashboard.py.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { dashboardHost, DraftState, FetchJSON } from '../dashboard/dashboardHost';
import { draftStore, KeyValueStorage } from '../dashboard/draftStore';
import { storeChanges } from '../dashboard/storeChanges';
import type { GraphView } from '../model/graphModel';
import type { HostMessage } from '../model/protocol';

const at = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
const graphOf = (...ids: string[]): GraphView => ({
  uri: 'file:///h/workflow-designs/ship.json',
  version: null,
  stale: false,
  name: 'ship',
  nodes: ids.map((id, i) => ({ id, kind: i === 0 ? 'trigger' : 'agent', plan_index: i, range: at, defects: [] })),
  edges: [],
  defects: [],
});
const ids = (graph: GraphView) => graph.nodes.map((n) => n.id).join(',');

/** sessionStorage in memory; `full` makes every write fail as a full storage does. */
function memoryStorage(): KeyValueStorage & { map: Map<string, string>; full: boolean } {
  const map = new Map<string, string>();
  return {
    map,
    full: false,
    get length() {
      return map.size;
    },
    key: (i) => [...map.keys()][i] ?? null,
    getItem: (k) => map.get(k) ?? null,
    setItem(k, v) {
      if (this.full) throw new Error('QuotaExceededError');
      map.set(k, v);
    },
    removeItem: (k) => void map.delete(k),
  };
}

/** The routes of design `ship`: the stored copy (its revision) and the PUTs they take. */
function fakeStore() {
  const state = { revision: 'r1', nodes: ['start', 'draft'], deleted: false };
  const stored = () => JSON.stringify({ name: 'ship', nodes: state.nodes.map((id) => ({ id })) });
  const calls: string[] = [];
  let edits = 0;
  const fetchJSON: FetchJSON = async (path, init) => {
    const method = init?.method ?? 'GET';
    const route = path.replace('/api/plugins/visual-workflow', '');
    const body = init?.body ? JSON.parse(init.body) : undefined;
    calls.push(`${method} ${route}${init?.body ? ` ${init.body}` : ''}`);
    if (route === '/designs/ship/graph') return { ...graphOf(...state.nodes), revision: state.revision, text: stored() };
    if (route.startsWith('/runs?')) return { runs: [] };
    if (route === '/designs/ship/edit') {
      edits += 1;
      const nodes = [...state.nodes, `agent-${edits}`];
      return { text: JSON.stringify({ name: 'ship', nodes }), id: `agent-${edits}`, graph: graphOf(...nodes), valid: true, defects: [], ...(body.text === undefined ? { base: state.revision } : {}) };
    }
    if (route === '/designs/ship' && method === 'PUT') {
      const revision = state.deleted ? null : state.revision;
      if (body.base !== undefined && body.base !== revision) {
        throw new Error(`409: ${JSON.stringify({ error: "design 'ship' was changed by another writer since this copy was read; not saved", argument: 'base', revision, text: state.deleted ? null : stored() })}`);
      }
      state.revision = `r${Number(state.revision.slice(1)) + 1}`;
      state.nodes = JSON.parse(body.text).nodes.map((n: string | { id: string }) => (typeof n === 'string' ? n : n.id));
      state.deleted = false;
      return { saved: true, path: '/h/workflow-designs/ship.json', revision: state.revision };
    }
    throw new Error(`404: ${method} ${route}`);
  };
  return { state, calls, fetchJSON };
}

const settle = () => new Promise((r) => setTimeout(r, 5));

/** A host for `ship` as the tab mounts it, with the page's draft store. */
async function openTab(fetchJSON: FetchJSON, storage: KeyValueStorage | undefined) {
  const host = dashboardHost('ship', fetchJSON, { schedule: () => undefined, cancel: () => undefined, drafts: storage ? draftStore(storage) : undefined });
  const seen: HostMessage[] = [];
  const drafts: DraftState[] = [];
  host.onMessage((m) => seen.push(m));
  host.onDraft((d) => drafts.push(d));
  host.post({ type: 'ready' });
  await settle();
  const graphs = () => seen.flatMap((m) => (m.type === 'graph' ? [ids(m.graph)] : []));
  const notices = () => seen.flatMap((m) => (m.type === 'notice' && m.text ? [m.text] : []));
  return { host, drafts, graphs, notices, last: () => drafts.at(-1)! };
}

test('draftStore keeps a draft per design, reads back only what is a draft, and says when the browser will not keep it', () => {
  const storage = memoryStorage();
  const store = draftStore(storage);
  const draft = { text: '{"name": "ship"}', graph: graphOf('start'), valid: false, base: 'r1' };
  assert.equal(store.keep('ship', draft), true);
  assert.equal(store.keep('review flow', { ...draft, base: null }), true);
  assert.deepEqual(store.load('ship'), draft);
  assert.deepEqual(store.names(), ['review flow', 'ship']);
  store.drop('ship');
  assert.equal(store.load('ship'), undefined);
  assert.deepEqual(store.names(), ['review flow']);
  for (const broken of ['not json', '{"graph": {"nodes": [], "edges": []}}', '{"text": "x", "graph": 3}']) {
    storage.map.set('hwf-draft:torn', broken);
    assert.equal(store.load('torn'), undefined, broken);
  }
  store.rememberDesign('ship');
  assert.equal(store.lastDesign(), 'ship');
  storage.full = true;
  assert.equal(store.keep('ship', draft), false);
  const none = draftStore(undefined);
  assert.equal(none.keep('ship', draft), false);
  assert.deepEqual([none.load('ship'), none.names(), none.lastDesign()], [undefined, [], undefined]);
});

test('the dashboard host keeps the draft while the tab is left, draws it again on return, and drops it once saved', async () => {
  const { calls, fetchJSON, state } = fakeStore();
  const storage = memoryStorage();
  const first = await openTab(fetchJSON, storage);
  first.host.post({ type: 'edit', edit: 'addNode', kind: 'agent', after: 'draft' });
  await settle();
  first.host.dispose(); // the dashboard's navigation unmounts the tab
  const { born, ...kept } = draftStore(storage).load('ship')!;
  assert.deepEqual(Object.keys(born ?? {}), ['agent-1'], 'the node added here, with when');
  assert.deepEqual(kept, { text: '{"name":"ship","nodes":["start","draft","agent-1"]}', graph: graphOf('start', 'draft', 'agent-1'), valid: true, base: 'r1', baseText: '{"name":"ship","nodes":[{"id":"start"},{"id":"draft"}]}' });

  calls.length = 0;
  const back = await openTab(fetchJSON, storage);
  assert.deepEqual(back.graphs(), ['start,draft,agent-1'], 'the draft, not the stored design');
  assert.ok(!calls.some((c) => c.includes('/graph')), 'drawn from the kept draft');
  assert.equal(back.last().dirty, true);
  assert.deepEqual(back.notices(), ['Your unsaved changes to ship are back: Save or Discard them.']);
  assert.equal(await back.host.save(), true);
  assert.ok(calls.includes('PUT /designs/ship {"text":"{\\"name\\":\\"ship\\",\\"nodes\\":[\\"start\\",\\"draft\\",\\"agent-1\\"]}","base":"r1"}'), calls.join('\n'));
  assert.deepEqual([back.last().dirty, state.revision, draftStore(storage).names()], [false, 'r2', []]);
  // The next edit is of the saved draft, whose base is the revision the save wrote.
  back.host.post({ type: 'edit', edit: 'addNode', kind: 'agent', after: 'draft' });
  await settle();
  assert.equal(draftStore(storage).load('ship')?.base, 'r2');
  back.host.dispose();
});

test('the dashboard host: undo back to the stored design drops the kept draft; without storage the state says it is not kept', async () => {
  const { fetchJSON } = fakeStore();
  const storage = memoryStorage();
  const tab = await openTab(fetchJSON, storage);
  tab.host.post({ type: 'edit', edit: 'addNode', kind: 'agent', after: 'draft' });
  await settle();
  assert.deepEqual(draftStore(storage).names(), ['ship']);
  tab.host.post({ type: 'undo' });
  await settle();
  assert.deepEqual([tab.last().dirty, draftStore(storage).names()], [false, []]);
  tab.host.dispose();

  const bare = await openTab(fetchJSON, undefined);
  bare.host.post({ type: 'edit', edit: 'addNode', kind: 'agent', after: 'draft' });
  await settle();
  assert.deepEqual(bare.last(), { dirty: true, valid: true, kept: false });
  bare.host.dispose();
});

/** A tab with a draft (an agent added) whose Save was just refused: hwf or the chat stored revision r7 meanwhile. */
async function refusedSave() {
  const { calls, fetchJSON, state } = fakeStore();
  const storage = memoryStorage();
  const tab = await openTab(fetchJSON, storage);
  tab.host.post({ type: 'edit', edit: 'addNode', kind: 'agent', after: 'draft' });
  await settle();
  Object.assign(state, { revision: 'r7', nodes: ['start', 'theirs'] });
  assert.equal(await tab.host.save(), false);
  return { calls, state, storage, tab };
}

test('the dashboard host: a Save refused because another writer changed the design says so, keeps the draft, and overwrites only on purpose', async () => {
  const { calls, state, storage, tab } = await refusedSave();
  const conflict = tab.last().conflict ?? '';
  assert.match(conflict, /^Not saved: ship was changed in the store after you opened it .* They added theirs; removed draft\. Reload the stored design \(your changes are dropped\), or overwrite it with yours\.$/);
  assert.ok(!tab.notices().includes(conflict), 'said once, by the toolbar, not again as a notice');
  assert.deepEqual([state.nodes, tab.last().dirty, draftStore(storage).names()], [['start', 'theirs'], true, ['ship']]);
  assert.equal(await tab.host.save(), false, 'Save again is refused again');
  assert.equal(await tab.host.overwrite(), true);
  assert.equal(calls.filter((c) => c.startsWith('PUT')).at(-1), 'PUT /designs/ship {"text":"{\\"name\\":\\"ship\\",\\"nodes\\":[\\"start\\",\\"draft\\",\\"agent-1\\"]}","base":"r7"}');
  assert.deepEqual([state.nodes, tab.last()], [['start', 'draft', 'agent-1'], { dirty: false, valid: true }]);
  tab.host.dispose();
});

test('the dashboard host: after a conflict, reloading the stored design drops the draft and draws the other writer\'s copy', async () => {
  const { calls, storage, tab } = await refusedSave();
  await tab.host.discard();
  assert.equal(tab.graphs().at(-1), 'start,theirs');
  assert.deepEqual([tab.last(), draftStore(storage).names()], [{ dirty: false, valid: undefined }, []]);
  assert.equal(tab.notices().at(-1), 'Discarded your changes: ship as stored.');
  tab.host.post({ type: 'undo' }); // the history went with the draft
  await settle();
  assert.equal(tab.graphs().at(-1), 'start,theirs');
  tab.host.post({ type: 'edit', edit: 'addNode', kind: 'agent', after: 'theirs' });
  await settle();
  assert.equal(await tab.host.save(), true);
  assert.match(calls.filter((c) => c.startsWith('PUT')).at(-1)!, /"base":"r7"\}$/);
  tab.host.dispose();
});

test('the dashboard host: a design deleted since is a conflict too; a server that gives no revision gets a Save without a base', async () => {
  const { calls, fetchJSON, state } = fakeStore();
  const tab = await openTab(fetchJSON, memoryStorage());
  tab.host.post({ type: 'edit', edit: 'addNode', kind: 'agent', after: 'draft' });
  await settle();
  state.deleted = true;
  assert.equal(await tab.host.save(), false);
  assert.match(tab.last().conflict ?? '', /^Not saved: ship was deleted in the store/);
  assert.equal(await tab.host.overwrite(), true);
  assert.equal(calls.filter((c) => c.startsWith('PUT')).at(-1), 'PUT /designs/ship {"text":"{\\"name\\":\\"ship\\",\\"nodes\\":[\\"start\\",\\"draft\\",\\"agent-1\\"]}"}');
  tab.host.dispose();

  const older: FetchJSON = async (path, init) => {
    const answer = (await fetchJSON(path, init)) as Record<string, unknown>;
    const { revision: _r, base: _b, ...rest } = answer;
    return rest;
  };
  const old = await openTab(older, memoryStorage());
  old.host.post({ type: 'edit', edit: 'addNode', kind: 'agent', after: 'draft' });
  await settle();
  assert.equal(await old.host.save(), true);
  assert.doesNotMatch(calls.filter((c) => c.startsWith('PUT')).at(-1)!, /"base"/);
  old.host.dispose();
});

test('storeChanges says in words what another writer changed between the draft\'s base and the stored copy', () => {
  const design = (nodes: object[], name = 'ship') => JSON.stringify({ name, nodes });
  const base = design([{ id: 'start', type: 'trigger' }, { id: 'gate', type: 'approval', question: 'Ship?' }]);
  const cases: [string, string, string][] = [
    ['a node added', design([{ id: 'start', type: 'trigger' }, { id: 'gate', type: 'approval', question: 'Ship?' }, { id: 'note', type: 'note' }]), 'They added note.'],
    ['a node removed, one changed', design([{ id: 'gate', type: 'approval', question: 'Now?', title: 'Go' }]), 'They removed start; changed gate (question, title).'],
    ['renamed', design([{ id: 'start', type: 'trigger' }, { id: 'gate', type: 'approval', question: 'Ship?' }], 'other'), 'They renamed the design to "other".'],
    ['the layout only', JSON.stringify(JSON.parse(base), null, 4), 'They changed only the layout of the text, nothing of the design.'],
    ['reordered', design([{ id: 'gate', type: 'approval', question: 'Ship?' }, { id: 'start', type: 'trigger' }]), 'They reordered the nodes.'],
    ['torn', '{"name": "ship", "nodes": [', 'The stored copy is not valid JSON now.'],
    ['many added', design([...'abcdef'].map((id) => ({ id, type: 'note' }))), 'They added a, b, c, d and 2 more; removed start, gate.'],
  ];
  for (const [what, stored, says] of cases) assert.equal(storeChanges(base, stored), says, what);
  assert.equal(storeChanges('not json', base), '');
});

test('the dashboard host: a stored design that does not parse is never "saved": the state says where it breaks and what to do', async () => {
  const torn: GraphView = { ...graphOf(), stale: true, defects: [{ code: 'json-syntax', message: 'Expecting value', range: { start: { line: 2, character: 4 }, end: { line: 2, character: 5 } } } as never] };
  const fetchJSON: FetchJSON = async (path) => {
    if (path.endsWith('/graph')) return { ...torn, revision: 'r1', text: '{"name": "ship",\n"nodes": [\n    ,' };
    if (path.includes('/runs?')) return { runs: [] };
    throw new Error(`404: ${path}`);
  };
  const tab = await openTab(fetchJSON, memoryStorage());
  assert.deepEqual(tab.last(), {
    dirty: false,
    valid: undefined,
    broken: 'Not valid JSON at line 3, column 5: Expecting value. The tab cannot edit ship until its file parses: fix it in a text editor (or hwf check it), then pick it again here.',
  });
  tab.host.dispose();
});

test('the dashboard host: a node added (or renamed to an id) after the newest run started shows none of that run\'s states, also after a reload', async () => {
  const run = { run_id: 'r1', name: 'ship', status: 'completed', created_at: '2026-12-04T10:00:00.000+00:00', step_states: [{ id: 'start', type: 'trigger', status: 'done' }, { id: 'agent', type: 'agent', status: 'done' }, { id: 'b', type: 'agent', status: 'done' }] };
  let text = '{"name":"ship","nodes":[]}';
  const fetchJSON: FetchJSON = async (path, init) => {
    if (path.endsWith('/graph')) return { ...graphOf('start', 'agent', 'b'), revision: 'r1', text };
    if (path.includes('/runs?')) return { runs: [run] };
    if (path.endsWith('/edit')) {
      const body = JSON.parse(init!.body!);
      text = `${text} `;
      return { text, id: body.edit === 'addNode' ? 'agent' : body.newId ?? null, graph: graphOf('start', 'agent', 'b'), valid: true, defects: [] };
    }
    if (init?.method === 'PUT') return { saved: true, revision: 'r2' };
    throw new Error(`404: ${path}`);
  };
  const positions = new Map<string, string>();
  const storage = { getItem: (k: string) => positions.get(k) ?? null, setItem: (k: string, v: string) => void positions.set(k, v) };
  let clock = Date.parse('2026-12-04T11:00:00Z');
  const open = async () => {
    const host = dashboardHost('ship', fetchJSON, { schedule: () => undefined, cancel: () => undefined, storage, now: () => clock });
    const seen: HostMessage[] = [];
    host.onMessage((m) => seen.push(m));
    host.post({ type: 'ready' });
    await settle();
    const shown = () => seen.flatMap((m) => (m.type === 'run' ? [m.steps.map((s) => s.id).join(',')] : [])).at(-1);
    return { host, shown };
  };
  const tab = await open();
  assert.equal(tab.shown(), 'start,agent,b', 'before any edit every step of the run is drawn');
  tab.host.post({ type: 'edit', edit: 'deleteNode', id: 'agent' });
  tab.host.post({ type: 'edit', edit: 'addNode', kind: 'agent', after: 'start' });
  await settle();
  assert.equal(tab.shown(), 'start,b', 'the new agent never ran');
  tab.host.post({ type: 'edit', edit: 'renameNode', id: 'x', newId: 'b' });
  await settle();
  assert.equal(tab.shown(), 'start');
  for (const [move, shown] of [['undo', 'start,b'], ['undo', 'start,agent,b'], ['redo', 'start,b'], ['redo', 'start']] as const) {
    tab.host.post({ type: move });
    await settle();
    assert.equal(tab.shown(), shown, `${move}: the version's own new nodes`);
  }
  assert.equal(await tab.host.save(), true);
  tab.host.dispose();
  const again = await open();
  assert.equal(again.shown(), 'start', 'the rule outlives a reload');
  again.host.dispose();
  run.created_at = '2026-12-04T12:00:00.000+00:00'; // a run started after the edits ran them
  clock += 7200_000;
  const later = await open();
  assert.equal(later.shown(), 'start,agent,b');
  later.host.dispose();
});

test('the dashboard host: Start run is refused while a run started here has not answered, or the newest run is running', async () => {
  let answer: (v: unknown) => void = () => undefined;
  let newest: unknown[] = [];
  const calls: string[] = [];
  const fetchJSON: FetchJSON = async (path, init) => {
    if (path.endsWith('/graph')) return { ...graphOf('start'), revision: 'r1', text: '{}' };
    if (path.includes('/runs?')) return { runs: newest };
    calls.push(`${init?.method} ${path}`);
    return new Promise((resolve) => { answer = resolve; });
  };
  const tab = await openTab(fetchJSON, memoryStorage());
  tab.host.post({ type: 'run', action: 'start' });
  await settle();
  tab.host.post({ type: 'run', action: 'start' });
  tab.host.post({ type: 'run', action: 'fromHere', id: 'start' });
  await settle();
  assert.equal(calls.length, 1, calls.join('\n'));
  assert.equal(tab.notices().at(-1), 'A run is starting: wait for it, or cancel it.');
  answer({ run_id: 'a1', name: 'ship', status: 'running', step_states: [] });
  await settle();
  tab.host.post({ type: 'run', action: 'start' });
  await settle();
  assert.equal(calls.length, 1);
  assert.equal(tab.notices().at(-1), 'Run a1 is running: wait for it, or cancel it.');
  newest = [];
  tab.host.dispose();
});
