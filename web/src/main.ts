/**
 * The explorer page: sign in, pick a source and syncs, render the merged graph, search, focus a node, follow syncs
 * live. Timings of the graph load are left as performance marks (`graph-fetch`, `graph-render`) for anyone who
 * opens the browser's performance panel (and for bench/explorer.ts).
 */
import 'highlight.js/styles/github.css';
import './style.css';
import { createApi, type MergedGraph } from './api.ts';
import { createAuth } from './auth.ts';
import { OTHER_COLOUR, TYPE_COLOURS } from './colours.ts';
import { readConfig } from './config.ts';
import { createDetailPane } from './detail.ts';
import { byId, el, errorText, swatch } from './dom.ts';
import { createGraphView } from './graph-view.ts';
import { openLive, type LiveStream } from './live.ts';
import { createPicker } from './picker.ts';
import { createSearch } from './search.ts';

const auth = createAuth(readConfig());
const api = createApi(auth);
const status = byId('graph-status');
const live = byId('live');
const startButton = byId<HTMLButtonElement>('start-sync');
const graph = createGraphView(byId('graph'));
const picker = createPicker(byId('source'), byId('syncs'), byId('syncs-summary'), api);
let shownSyncs: string[] = [];
/** The node whose detail is open (kept in the address with the source and syncs). */
let focusedNode: string | undefined;

/**
 * The page's address says what is on screen — `?source=<id>&syncs=<id,…>&node=<node id>` — so a reload or a shared
 * link shows the same source, syncs and node.
 */
function saveState(): void {
  const q = new URLSearchParams();
  const source = picker.selectedSource();
  if (source) q.set('source', source);
  if (shownSyncs.length > 0) q.set('syncs', shownSyncs.join(','));
  if (focusedNode) q.set('node', focusedNode);
  const query = q.toString();
  const next = `${location.pathname}${query ? `?${query}` : ''}${location.hash}`;
  if (next !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(null, '', next);
}
let stream: LiveStream | undefined;
let username = 'explorer';

const focus = (nodeId: string, line?: number): boolean => {
  const node = graph.node(nodeId);
  if (!node || !graph.focus(nodeId)) return false;
  focusedNode = nodeId;
  saveState();
  void detail.show(nodeId, node.latest_sync_id, node, line);
  return true;
};
const detail = createDetailPane(byId('detail'), api, { focus });
createSearch(
  byId('search-form'),
  byId('search'),
  byId('search-results'),
  api,
  {
    focus,
    openSymbol: (address, syncId) => void detail.showSymbol(address, syncId),
    sourceId: () => picker.selectedSource(),
  },
  byId<HTMLInputElement>('search-all'),
);
graph.onSelect((id) => focus(id));

byId('legend').replaceChildren(
  el('h3', {}, 'Node types'),
  ...Object.entries(TYPE_COLOURS).map(([t, c]) => el('span', { class: 'legend-item' }, swatch(c), t)),
  el('span', { class: 'legend-item' }, swatch(OTHER_COLOUR), 'other'),
  el('span', { class: 'legend-item divergent' }, '◆ divergent across the selected syncs'),
);

let loadSeq = 0;
async function loadGraph(syncIds: string[]): Promise<void> {
  const seq = ++loadSeq;
  shownSyncs = syncIds;
  // data-syncs / data-nodes describe the graph on screen: cleared until the new one has been drawn.
  delete status.dataset.syncs;
  delete status.dataset.nodes;
  detail.clear();
  if (syncIds.length === 0) {
    focusedNode = undefined;
    saveState();
    graph.clear();
    status.textContent = 'No completed sync selected.';
    return;
  }
  status.textContent = 'Loading the graph…';
  performance.clearMarks();
  performance.clearMeasures();
  performance.mark('graph-request');
  let merged: MergedGraph;
  try {
    merged = await api.get<MergedGraph>('/api/graph', { sync_ids: syncIds.join(',') });
  } catch (err) {
    if (seq === loadSeq) status.textContent = `The graph could not be loaded: ${errorText(err)}`;
    return;
  }
  if (seq !== loadSeq) return;
  performance.measure('graph-fetch', 'graph-request');
  performance.mark('graph-fetched');
  const m = merged.meta;
  status.textContent = `${m.node_count.toLocaleString('en-US')} files · ${m.edge_count.toLocaleString('en-US')} dependencies · ${m.sync_count} sync${m.sync_count === 1 ? '' : 's'}`;
  await graph.show(merged);
  performance.measure('graph-build', 'graph-fetched', 'graph-built');
  performance.measure('graph-render', 'graph-fetched');
  status.dataset.nodes = String(m.node_count);
  status.dataset.syncs = syncIds.join(',');
  // The node in focus stays in focus when the new graph holds it.
  const keep = focusedNode;
  focusedNode = undefined;
  if (!keep || !focus(keep)) saveState();
}

async function loadSource(select?: string[]): Promise<void> {
  const sourceId = picker.selectedSource();
  startButton.disabled = sourceId === undefined;
  if (!sourceId) {
    status.textContent = 'No sources yet. Register one through the API (POST /api/sources).';
    return;
  }
  await loadGraph(await picker.loadSyncs(sourceId, select));
}

let followed: string | undefined;
startButton.addEventListener('click', () => {
  const sourceId = picker.selectedSource();
  if (!sourceId) return;
  startButton.disabled = true;
  api
    .post<{ id: string }>('/api/syncs', { source_id: sourceId, triggered_by: username })
    .then((run) => {
      followed = run.id;
      live.textContent = 'Sync requested…';
      return picker.loadSyncs(sourceId, shownSyncs);
    })
    .catch((err: unknown) => {
      live.textContent = `Sync not started: ${errorText(err)}`;
      startButton.disabled = false;
    });
});

function startLive(): void {
  stream?.close();
  stream = openLive(auth, {
    state(s) {
      live.dataset.stream = s;
    },
    progress(e) {
      if (e.sync_id !== followed && e.source_id !== picker.selectedSource()) return;
      const pct = e.progress_total > 0 ? Math.round((100 * e.progress_done) / e.progress_total) : 0;
      live.dataset.phase = e.phase;
      live.textContent = `Sync ${picker.syncName(e.sync_id)}: ${e.phase} ${e.progress_done}/${e.progress_total} (${pct}%)`;
    },
    lifecycle(e) {
      if (e.source_id !== picker.selectedSource()) return;
      live.dataset.status = e.status;
      live.textContent = `Sync ${picker.syncName(e.sync_id)}: ${e.status}${e.error ? ` (${e.error})` : ''}`;
      if (['completed', 'failed', 'cancelled'].includes(e.status)) {
        startButton.disabled = false;
        if (e.status === 'completed') void loadSource([e.sync_id]);
        else void picker.loadSyncs(e.source_id, shownSyncs);
      } else if (e.status === 'pending' || e.status === 'running') {
        followed ??= e.sync_id;
        startButton.disabled = true;
      }
    },
  });
}

picker.onSourceChange(() => {
  focusedNode = undefined;
  void loadSource();
});
picker.onSyncsChange((syncIds) => void loadGraph(syncIds));

byId('sign-in').addEventListener('click', () => void auth.signIn());
byId('sign-out').addEventListener('click', () => {
  stream?.close();
  void auth.signOut().then(() => location.assign('/'));
});
auth.onChange((user) => {
  if (!user) showSignedOut();
});

function showSignedOut(): void {
  graph.clear();
  byId('signin').hidden = false;
  byId('sign-out').hidden = true;
  byId('user').textContent = '';
  status.textContent = '';
}

async function boot(): Promise<void> {
  const user = await auth.start();
  if (!user) return showSignedOut();
  const profile = user.profile as { preferred_username?: string; name?: string };
  username = profile.preferred_username ?? profile.name ?? user.profile.sub;
  byId('user').textContent = username;
  byId('sign-out').hidden = false;
  byId('signin').hidden = true;
  startLive();
  const wanted = new URLSearchParams(location.search);
  focusedNode = wanted.get('node') ?? undefined;
  await picker.loadSources(wanted.get('source') ?? undefined);
  await loadSource(
    wanted
      .get('syncs')
      ?.split(',')
      .filter((id) => id !== '') ?? undefined,
  );
}

boot().catch((err: unknown) => {
  status.textContent = `Sign-in failed: ${errorText(err)}`;
  byId('signin').hidden = false;
});
