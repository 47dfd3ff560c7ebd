/**
 * GET /api/graph/pr: what a pull/merge request changes, for a reviewer (docs/webhooks.md "PR report"). Compares the
 * request's newest completed sync (a review snapshot, pull_request_syncs) with the newest completed sync of its base
 * branch: files added, removed and changed; their symbols added, removed and changed; depends_on edges added and
 * removed; and each touched file's blast radius (the files that depend on it, transitively to depth 3) — files
 * ranked riskiest first, each linked to its node detail in the sync that holds it.
 *
 * Symbols are matched by their stable key (path + container chain + name + kind), and a symbol is "changed" when it
 * is in both versions of a file and the text of its own lines differs (an edit elsewhere in the file, or lines added
 * above it, do not mark it).
 */
import type Router from '@koa/router';
import { FailedPreconditionError, InvalidArgumentError, NotFoundError } from '../../lib/errors.ts';
import type { PrFile, PrReport } from '../../lib/api/pr-report.ts';
import { encodeNodeId } from '../../lib/node-id.ts';
import { mount } from '../../lib/api/route.ts';
import { getPrReport } from '../../lib/api/routes/graph.ts';
import { withReadTx, type ReadTx } from '../db/read.ts';
import type { GraphAppDeps } from '../deps.ts';
import type { SnapshotCache } from '../caches.ts';
import { snapshotOf, type SyncSnapshot } from '../graph/snapshot.ts';
import { diffSnapshots } from './diff.ts';
import { walkImpact } from './impact.ts';
import { reconstruct, type ChunkText } from '../file/reconstruct.ts';
import { symbolImpact } from '../symbols/read.ts';
import type { SymbolGraph, SymbolGraphCache } from '../symbols/snapshot.ts';
import { requireGraph, type SyncRow } from '../syncs/pick.ts';

/** How deep a touched file's dependents are counted. */
export const PR_IMPACT_DEPTH = 3;

interface RefSync extends SyncRow {
  ref: string | null;
}

interface PrSync extends RefSync {
  pr_number: number;
  provider: string;
  base_ref: string;
  head_commit: string | null;
  closed_at: Date | null;
}

const SYNC_COLUMNS = `s.id, s.source_id, s.status, s.completed_at, s.created_at, s.ref`;

async function headSync(tx: ReadTx, q: { syncId?: string; sourceId?: string; number?: number }): Promise<PrSync> {
  const cols = `${SYNC_COLUMNS}, p.pr_number, p.provider, p.base_ref, p.head_commit, p.closed_at`;
  if (q.syncId) {
    const r = await tx.query<PrSync>(
      `SELECT ${cols} FROM sync_runs s JOIN pull_request_syncs p ON p.sync_id = s.id WHERE s.id = $1`,
      [q.syncId],
    );
    const row = r.rows[0];
    if (!row) throw new NotFoundError('pull request sync', q.syncId);
    return row;
  }
  const r = await tx.query<PrSync>(
    `SELECT ${cols} FROM sync_runs s JOIN pull_request_syncs p ON p.sync_id = s.id
      WHERE p.source_id = $1 AND p.pr_number = $2 AND s.status IN ('completed', 'cleaned')
      ORDER BY s.created_at DESC, s.id DESC LIMIT 1`,
    [q.sourceId, q.number],
  );
  const row = r.rows[0];
  if (!row) throw new NotFoundError('completed sync of pull request', `${q.number} of source ${q.sourceId}`);
  return row;
}

/** The newest completed branch sync of the source on `baseRef`, else on any branch (ref_matched false). */
async function baseSync(tx: ReadTx, sourceId: string, baseRef: string): Promise<{ row: RefSync; matched: boolean }> {
  const r = await tx.query<RefSync & { matched: boolean }>(
    `SELECT ${SYNC_COLUMNS}, (s.ref = $2) AS matched FROM sync_runs s
      WHERE s.source_id = $1 AND s.status = 'completed'
        AND NOT EXISTS (SELECT 1 FROM pull_request_syncs p WHERE p.sync_id = s.id)
      ORDER BY (s.ref = $2) DESC, s.created_at DESC, s.id DESC LIMIT 1`,
    [sourceId, baseRef],
  );
  const row = r.rows[0];
  if (!row) throw new NotFoundError('completed sync of the base branch', `${baseRef} of source ${sourceId}`);
  return { row, matched: row.matched };
}

interface FileSymbols {
  /** A symbol's stable key (or `kind name` for contents analysed before keys) → the symbol and its text. */
  symbols: Map<string, SymbolRow>;
}

/**
 * The symbols of the files at `paths` in a sync, each with the text of its span (line .. end_line of the file as its
 * chunks rebuild it), so a symbol is "changed" exactly when its own lines changed, wherever it moved in the file.
 */
async function symbolsOf(tx: ReadTx, syncId: string, paths: string[]): Promise<Map<string, FileSymbols>> {
  const out = new Map<string, FileSymbols>();
  if (paths.length === 0) return out;
  const chunks = await tx.query<ChunkText & { file_path: string }>(
    `SELECT f.file_path, c.chunk_index, c.content, c.start_line, c.end_line FROM sync_files f
       JOIN file_content_chunks c ON c.content_id = f.content_id
      WHERE f.sync_id = $1 AND f.file_path = ANY($2::text[])`,
    [syncId, paths],
  );
  const byFile = new Map<string, ChunkText[]>();
  for (const c of chunks.rows) (byFile.get(c.file_path) ?? byFile.set(c.file_path, []).get(c.file_path)!).push(c);
  const lines = new Map([...byFile].map(([p, cs]) => [p, reconstruct(cs).content.split('\n')]));
  const syms = await tx.query<{
    file_path: string;
    name: string;
    kind: string;
    line: number;
    end_line: number | null;
    key: string | null;
  }>(
    `SELECT f.file_path, s.name, s.kind, s.line, s.end_line, s.key FROM sync_files f
       JOIN file_content_symbols s ON s.content_id = f.content_id
      WHERE f.sync_id = $1 AND f.file_path = ANY($2::text[])
      ORDER BY f.file_path, s.ordinal`,
    [syncId, paths],
  );
  // Contents analysed before symbols had an end line: a symbol then ends where the next one starts.
  const starts = new Map<string, number[]>();
  for (const s of syms.rows) (starts.get(s.file_path) ?? starts.set(s.file_path, []).get(s.file_path)!).push(s.line);
  for (const xs of starts.values()) xs.sort((a, b) => a - b);
  const endOf = (path: string, line: number): number => {
    const next = starts.get(path)!.find((l) => l > line);
    return next === undefined ? (lines.get(path)?.length ?? line) : next - 1;
  };
  for (const s of syms.rows) {
    const id = s.key ?? `${s.kind} ${s.name}`;
    let fs = out.get(s.file_path);
    if (!fs) out.set(s.file_path, (fs = { symbols: new Map() }));
    if (fs.symbols.has(id)) continue;
    const end = s.end_line ?? endOf(s.file_path, s.line);
    const text = (lines.get(s.file_path) ?? []).slice(s.line - 1, end).join('\n');
    fs.symbols.set(id, { name: s.name, kind: s.kind, line: s.line, key: s.key, text });
  }
  return out;
}

interface Touched {
  path: string;
  change: 'added' | 'removed' | 'changed';
  /** Index in the snapshot the file's dependents are counted in (head, or base for a removed file). */
  index: number;
  snap: SyncSnapshot;
  syncId: string;
}

type SymbolRow = { name: string; kind: string; line: number; key: string | null; text: string };

/** What one report reads in its transaction: the two syncs, their snapshots and diff, the touched files' symbols. */
interface Loaded {
  head: PrSync;
  base: { row: RefSync; matched: boolean };
  a: SyncSnapshot;
  b: SyncSnapshot;
  d: ReturnType<typeof diffSnapshots>;
  touched: Touched[];
  headSyms: Map<string, FileSymbols>;
  baseSyms: Map<string, FileSymbols>;
  g: SymbolGraph;
}

async function load(
  tx: ReadTx,
  caches: { snapshots: SnapshotCache; symbolGraphs: SymbolGraphCache },
  q: { syncId?: string; sourceId?: string; number?: number },
): Promise<Loaded> {
  const head = await headSync(tx, q);
  if (head.status !== 'completed') {
    throw new FailedPreconditionError(`sync ${head.id} of pull request ${head.pr_number} is ${head.status}`, {
      sync_id: head.id,
      status: head.status,
    });
  }
  const base = await baseSync(tx, head.source_id, head.base_ref);
  requireGraph(base.row);
  const [a, b] = [await snapshotOf(tx, caches.snapshots, base.row), await snapshotOf(tx, caches.snapshots, head)];
  const d = diffSnapshots(a, b);
  const at = (snap: SyncSnapshot, syncId: string, change: Touched['change']) => (index: number) => ({
    path: snap.paths[index]!,
    change,
    index,
    snap,
    syncId,
  });
  const touched: Touched[] = [
    ...d.added.map(at(b, head.id, 'added')),
    ...d.changed.map((c) => at(b, head.id, 'changed')(c.to)),
    ...d.removed.map(at(a, base.row.id, 'removed')),
  ];
  const paths = touched.filter((t) => t.change !== 'removed').map((t) => t.path);
  const basePaths = touched.filter((t) => t.change !== 'added').map((t) => t.path);
  const [headSyms, baseSyms] = [await symbolsOf(tx, head.id, paths), await symbolsOf(tx, base.row.id, basePaths)];
  // The base's symbol graph: who calls what the request changes or removes (issue 28's calls edges).
  const g = await caches.symbolGraphs.get(tx, base.row);
  return { head, base, a, b, d, touched, headSyms, baseSyms, g };
}

/** One touched file's entry: its blast radius, its symbols added/removed/changed (with callers), its risk. */
function fileEntry(r: Loaded, t: Touched, impacted: Map<number, { distance: number; via: number }>): PrFile {
  const { b, g } = r;
  let callerTotal = 0;
  const walk = walkImpact(t.snap, t.index, 'dependents', PR_IMPACT_DEPTH);
  if (t.snap === b) {
    for (const h of walk.hits) {
      const seen = impacted.get(h.index);
      if (!seen || seen.distance > h.distance) impacted.set(h.index, { distance: h.distance, via: t.index });
    }
  }
  const shown = ({ name, kind, line, key }: SymbolRow, withCallers = false) => {
    const i = withCallers && key !== null ? g.byRef.get(`${t.path}#${key}`) : undefined;
    const w = i === undefined ? undefined : symbolImpact(g, i, 'callers', PR_IMPACT_DEPTH);
    const callers = w && { direct: w.byDistance[0] ?? 0, total: w.hits.length, status: w.completeness.status };
    if (callers) callerTotal += callers.total;
    return {
      name,
      kind,
      line,
      ...(key ? { key, symbol_id: `${encodeNodeId(t.snap.sourceId, t.path)}#${key}` } : {}),
      ...(callers ? { callers } : {}),
    };
  };
  const now = r.headSyms.get(t.path);
  const was = r.baseSyms.get(t.path);
  const symbols: PrFile['symbols'] = { added: [], removed: [], changed: [] };
  for (const [id, s] of now?.symbols ?? []) {
    const before = was?.symbols.get(id);
    if (!before) symbols.added.push(shown(s));
    else if (before.text !== s.text) symbols.changed.push(shown(s, true));
  }
  for (const [id, s] of was?.symbols ?? []) if (!now?.symbols.has(id)) symbols.removed.push(shown(s, true));
  const nodeId = encodeNodeId(t.snap.sourceId, t.path);
  return {
    node_id: nodeId,
    file_path: t.path,
    change: t.change,
    sync_id: t.syncId,
    detail: `/api/graph/nodes/${encodeURI(nodeId)}?sync_id=${t.syncId}`,
    dependents: { direct: walk.byDistance[0] ?? 0, total: walk.hits.length },
    symbols,
    // Risk: how many files and call sites the change can break, then how much of the file's API moved.
    risk: walk.hits.length + callerTotal + symbols.removed.length + symbols.changed.length,
  };
}

/** The report: files riskiest first, the untouched files they impact nearest first, the edges; lists cut at limit. */
function report(r: Loaded, limit: number, started: number): PrReport {
  const { head, base, a, b, d } = r;
  const impacted = new Map<number, { distance: number; via: number }>();
  const files = r.touched.map((t) => fileEntry(r, t, impacted));
  for (const t of r.touched) if (t.snap === b) impacted.delete(t.index);
  files.sort((x, y) => y.risk - x.risk || y.dependents.direct - x.dependents.direct || cmp(x.file_path, y.file_path));
  const impactedList = [...impacted.entries()]
    .sort((x, y) => x[1].distance - y[1].distance || cmp(b.paths[x[0]]!, b.paths[y[0]]!))
    .map(([i, h]) => ({
      node_id: encodeNodeId(b.sourceId, b.paths[i]!),
      file_path: b.paths[i]!,
      distance: h.distance,
      via: encodeNodeId(b.sourceId, b.paths[h.via]!),
    }));
  const edge = (s: SyncSnapshot, [x, y]: [number, number]) => ({
    source: encodeNodeId(s.sourceId, s.paths[x]!),
    target: encodeNodeId(s.sourceId, s.paths[y]!),
  });
  const sum = (k: 'added' | 'removed' | 'changed') => files.reduce((n, f) => n + f.symbols[k].length, 0);
  return {
    source_id: head.source_id,
    pr: {
      number: head.pr_number,
      provider: head.provider,
      base_ref: head.base_ref,
      head_commit: head.head_commit,
      closed: head.closed_at !== null,
    },
    head: { sync_id: head.id, ref: head.ref, created_at: head.created_at.toISOString() },
    base: {
      sync_id: base.row.id,
      ref: base.row.ref,
      ref_matched: base.matched,
      created_at: base.row.created_at.toISOString(),
    },
    counts: {
      files_added: d.added.length,
      files_removed: d.removed.length,
      files_changed: d.changed.length,
      symbols_added: sum('added'),
      symbols_removed: sum('removed'),
      symbols_changed: sum('changed'),
      edges_added: d.edgesAdded.length,
      edges_removed: d.edgesRemoved.length,
      impacted_files: impacted.size,
    },
    truncated: Math.max(files.length, impactedList.length, d.edgesAdded.length, d.edgesRemoved.length) > limit,
    files: files.slice(0, limit),
    impacted: impactedList.slice(0, limit),
    edges: {
      added: d.edgesAdded.slice(0, limit).map((e) => edge(b, e)),
      removed: d.edgesRemoved.slice(0, limit).map((e) => edge(a, e)),
    },
    query_ms: Math.round(performance.now() - started),
  };
}

export function prReportRoutes(
  router: Router,
  deps: GraphAppDeps,
  snapshots: SnapshotCache,
  symbolGraphs: SymbolGraphCache,
): void {
  const { pool, graphTimeoutMs } = deps;
  mount(router, getPrReport, async ({ query }) => {
    const started = performance.now();
    const { sync_id: syncId, source_id: sourceId, number, limit } = query;
    if (!syncId && !(sourceId && number)) {
      throw new InvalidArgumentError('number', 'source_id and number are required unless sync_id is given');
    }
    const q = syncId ? { syncId } : { sourceId: sourceId!, number };
    const loaded = await withReadTx(pool, graphTimeoutMs, (tx) => load(tx, { snapshots, symbolGraphs }, q));
    return report(loaded, limit, started);
  });
}

function cmp(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
