/**
 * One sync's symbol graph in memory (issue 28): its Symbol vertices and the Symbol -> Symbol edges of the five labels
 * (calls, inherits, implements, overrides, references), with each edge's provenance, confidence and sites, plus how
 * many unresolved uses each file and each name has. Read once per sync and kept while the sync cannot change (same
 * rule and key as the merged graph's snapshots, caches.ts), so symbol detail and symbol impact walk arrays
 * instead of reading agtype values (about a microsecond each) per request.
 */
import { graphSyncOf, type ReadTx } from '../db/read.ts';
import { LRUCache } from 'lru-cache';
import { entrySize, SnapshotCache } from '../caches.ts';
import type { SnapshotSync } from '../graph/snapshot.ts';

export const SYMBOL_LABELS = ['calls', 'inherits', 'implements', 'overrides', 'references'] as const;
export type SymbolLabel = (typeof SYMBOL_LABELS)[number];

export interface SymbolEdgeInfo {
  /** Index of the other end. */
  other: number;
  label: SymbolLabel;
  provenance: string;
  confidence: number;
  lines: number[];
  count: number;
}

export interface SymbolGraph {
  syncId: string;
  sourceId: string;
  /** Files of the sync (paths, types, file record ids), by index. */
  filePaths: string[];
  fileTypes: string[];
  fileIds: string[];
  fileByPath: Map<string, number>;
  /** Symbols, parallel arrays. */
  file: Int32Array;
  keys: string[];
  names: string[];
  kinds: string[];
  symbolKinds: string[];
  lines: Int32Array;
  endLines: Int32Array;
  /** `<path>#<key>` → symbol index (symbols without a key are not addressable). */
  byRef: Map<string, number>;
  /** Symbols of each file, in line order. */
  byFile: Map<number, number[]>;
  /** Outgoing and incoming edges of each symbol. */
  out: SymbolEdgeInfo[][];
  in: SymbolEdgeInfo[][];
  /** Unresolved uses held by each symbol (by reason), and per used name (the last segment of the text as written). */
  unresolvedBySymbol: Map<number, Record<string, number>>;
  unresolvedByName: Map<string, number>;
  /** The sync was made with `symbol_graph: false`: it has symbols but no edges between them. */
  withoutGraph: boolean;
  bytes: number;
}

interface SymbolRow {
  f: string;
  s: string;
  p: string;
}

interface FileRow {
  v: string;
  p: string;
}

/** The sync's File vertices (by its sync_id index) and their defines edges to Symbol vertices. */
const FILES = `SELECT id::text AS v, ag_catalog.agtype_out(properties)::text AS p FROM service."File"
  WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = $1::text::ag_catalog.agtype`;

const SYMBOLS = `SELECT d.start_id::text AS f, d.end_id::text AS s, ag_catalog.agtype_out(v.properties)::text AS p
  FROM unnest($1::text[]) AS u(id)
  JOIN service.defines d ON d.start_id = u.id::ag_catalog.graphid
  JOIN service."Symbol" v ON v.id = d.end_id`;

/**
 * Every symbol edge of the sync, the five labels in one statement: the sync's Symbol vertices are found in the
 * database from its File vertices (not sent back as ~100k parameters once per label, which cost each label's
 * statement ~0.5 s on the Go standard library). `l` is the label's index in SYMBOL_LABELS.
 */
const EDGES = `WITH s AS MATERIALIZED (
    SELECT d.end_id AS id FROM unnest($1::text[]) AS u(id) JOIN service.defines d ON d.start_id = u.id::ag_catalog.graphid
  )
  ${SYMBOL_LABELS.map(
    (label, i) => `SELECT ${i} AS l, e.start_id::text AS s, e.end_id::text AS t,
         ag_catalog.agtype_out(e.properties)::text AS p
    FROM s JOIN service."${label}" e ON e.start_id = s.id`,
  ).join('\n  UNION ALL\n  ')}`;

interface EdgeRow {
  l: number;
  s: string;
  t: string;
  p: string;
}

/** The edge list of a symbol with none (never pushed to: addEdges replaces it). */
const NO_EDGES: SymbolEdgeInfo[] = [];
Object.freeze(NO_EDGES);
const NO_LINES: number[] = [];
Object.freeze(NO_LINES);

/**
 * The edges between the sync's symbols into `g.out` and `g.in`; returns their approximate bytes. Each edge's two
 * entries are built directly (no spread of a shared part) and its provenance string is interned: on the Go standard
 * library (371k edges) the first read's time was as much the collector's as the statements'.
 */
function addEdges(g: SymbolGraph, vertexIndex: ReadonlyMap<string, number>, rows: readonly EdgeRow[]): number {
  const provenances = new Map<string, string>();
  let bytes = 0;
  for (const r of rows) {
    const s = vertexIndex.get(r.s);
    const t = vertexIndex.get(r.t);
    if (s === undefined || t === undefined) continue;
    const p = JSON.parse(r.p) as { provenance: string; confidence: number; lines?: number[]; count?: number };
    let provenance = provenances.get(p.provenance);
    if (provenance === undefined) provenances.set(p.provenance, (provenance = p.provenance));
    const label = SYMBOL_LABELS[r.l]!;
    const lines = p.lines && p.lines.length > 0 ? p.lines : NO_LINES;
    const count = p.count ?? 1;
    let out = g.out[s]!;
    if (out === NO_EDGES) g.out[s] = out = [];
    out.push({ other: t, label, provenance, confidence: p.confidence, lines, count });
    let into = g.in[t]!;
    if (into === NO_EDGES) g.in[t] = into = [];
    into.push({ other: s, label, provenance, confidence: p.confidence, lines, count });
    bytes += 2 * (80 + 4 * lines.length);
  }
  return bytes;
}

/** The name a use's text ends with: `foo` for `a.b.foo`, `bar` for `Foo::bar`. */
export function lastSegment(text: string): string {
  const m = /([A-Za-z_$][\w$]*)[^\w$]*$/.exec(text);
  return m ? m[1]! : text;
}

export async function loadSymbolGraph(
  tx: ReadTx,
  sync: { id: string; source_id: string; status: string },
): Promise<SymbolGraph> {
  // No JIT for this read: its statements are estimated far above their real cost (the defines/label joins), so
  // PostgreSQL compiled each one (0.1-0.3 s a statement on the Go standard library) to save nothing.
  await tx.query(`SELECT set_config('jit', 'off', true)`);
  // The graph rows are the sync's own, or those of the sync whose graph it shares (an unchanged re-sync, V50).
  const graphOf = sync.status === 'cleaned' ? null : await graphSyncOf(tx, sync.id);
  const files = graphOf === null ? [] : (await tx.query<FileRow>(FILES, [JSON.stringify(graphOf)])).rows;
  const fileIndex = new Map<string, number>();
  const filePaths: string[] = [];
  const fileTypes: string[] = [];
  const fileIds: string[] = [];
  for (const f of files) {
    const p = JSON.parse(f.p) as { file_path: string; type: string; file_id: string };
    fileIndex.set(f.v, filePaths.length);
    filePaths.push(p.file_path);
    fileTypes.push(p.type);
    fileIds.push(p.file_id);
  }
  const symbols = files.length === 0 ? [] : (await tx.query<SymbolRow>(SYMBOLS, [files.map((f) => f.v)])).rows;
  const n = symbols.length;
  const g: SymbolGraph = {
    syncId: sync.id,
    sourceId: sync.source_id,
    filePaths,
    fileTypes,
    fileIds,
    fileByPath: new Map(filePaths.map((p, i) => [p, i])),
    file: new Int32Array(n),
    keys: new Array<string>(n),
    names: new Array<string>(n),
    kinds: new Array<string>(n),
    symbolKinds: new Array<string>(n),
    lines: new Int32Array(n),
    endLines: new Int32Array(n),
    byRef: new Map(),
    byFile: new Map(),
    // Most symbols have no edge in one direction or both: they share one empty list (addEdges gives a symbol its own
    // list at its first edge), which spares the first read ~200k arrays to allocate and collect.
    out: new Array<SymbolEdgeInfo[]>(n).fill(NO_EDGES),
    in: new Array<SymbolEdgeInfo[]>(n).fill(NO_EDGES),
    unresolvedBySymbol: new Map(),
    unresolvedByName: new Map(),
    withoutGraph: false,
    bytes: 0,
  };
  const vertexIndex = new Map<string, number>();
  let bytes = 1000 + files.length * 200;
  symbols.forEach((r, i) => {
    const p = JSON.parse(r.p) as {
      key?: string;
      name: string;
      kind: string;
      symbol_kind?: string;
      line: number;
      end_line?: number;
    };
    const fi = fileIndex.get(r.f)!;
    vertexIndex.set(r.s, i);
    g.file[i] = fi;
    g.keys[i] = p.key ?? '';
    g.names[i] = p.name;
    g.kinds[i] = p.kind;
    g.symbolKinds[i] = p.symbol_kind ?? p.kind;
    g.lines[i] = p.line;
    g.endLines[i] = p.end_line ?? p.line;
    if (p.key) g.byRef.set(`${filePaths[fi]}#${p.key}`, i);
    let list = g.byFile.get(fi);
    if (!list) g.byFile.set(fi, (list = []));
    list.push(i);
    bytes += 200 + 2 * ((p.key?.length ?? 0) + p.name.length) + 100;
  });
  for (const list of g.byFile.values()) list.sort((a, b) => g.lines[a]! - g.lines[b]! || cmp(g.keys[a]!, g.keys[b]!));
  if (n > 0) {
    const rows = (await tx.query<EdgeRow>(EDGES, [files.map((f) => f.v)])).rows;
    bytes += addEdges(g, vertexIndex, rows);
  }
  const config = await tx.query<{ off: boolean }>(
    `SELECT coalesce(config_snapshot -> 'symbol_graph' = 'false'::jsonb, false) AS off FROM sync_runs WHERE id = $1`,
    [sync.id],
  );
  g.withoutGraph = config.rows[0]?.off === true;
  if (graphOf !== null) {
    const unresolved = await tx.query<{
      file_path: string;
      uses: Array<{ from: string; text: string; reason: string }>;
    }>(
      `SELECT u.file_path, s.uses FROM sync_symbol_unresolved u JOIN symbol_unresolved_sets s ON s.hash = u.set_hash
        WHERE u.sync_id = $1`,
      [graphOf],
    );
    for (const r of unresolved.rows) {
      for (const u of r.uses) {
        const name = lastSegment(u.text);
        g.unresolvedByName.set(name, (g.unresolvedByName.get(name) ?? 0) + 1);
        const i = g.byRef.get(`${r.file_path}#${u.from}`);
        if (i === undefined) continue;
        let by = g.unresolvedBySymbol.get(i);
        if (!by) g.unresolvedBySymbol.set(i, (by = {}));
        by[u.reason] = (by[u.reason] ?? 0) + 1;
      }
      bytes += 100 + r.file_path.length * 2;
    }
    bytes += g.unresolvedByName.size * 80;
  }
  g.bytes = bytes;
  return g;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Symbol graphs of final syncs, least recently used first out, within a byte budget (lru-cache). Concurrent first
 * requests for a sync read it once: lru-cache's fetch shares the load in flight (on the first request's transaction).
 */
export class SymbolGraphCache {
  private readonly entries: LRUCache<string, SymbolGraph, { tx: ReadTx; sync: SnapshotSync }>;

  constructor(maxBytes: number) {
    this.entries = new LRUCache({
      maxSize: maxBytes,
      sizeCalculation: (g) => entrySize(g.bytes),
      fetchMethod: (_key, _stale, { context }) => loadSymbolGraph(context.tx, context.sync),
    });
  }

  async get(tx: ReadTx, sync: SnapshotSync): Promise<SymbolGraph> {
    const key = SnapshotCache.key(sync);
    if (!key) return loadSymbolGraph(tx, sync);
    const g = await this.entries.fetch(key, { context: { tx, sync } });
    if (!g) throw new Error(`symbol graph of sync ${sync.id}: nothing loaded`);
    return g;
  }
}
