/**
 * Storage of the symbol graph (issue 28, schema V28; docs/graph.md "Symbol graph"):
 *   - per-file symbol facts, once per (content hash, language, analysis key), shared by every sync and source
 *     (`writeSymbolFacts` for analysed files; `loadSymbolFacts` reads a sync's files' facts, whether the sync
 *     analysed them or reused them);
 *   - the resolver's edges as AGE rows of the labels calls, inherits, implements, overrides, references
 *     (Symbol -> Symbol, per sync, properties sync_id, source_id, provenance, confidence, lines, count), inserted
 *     straight into the label tables like depends_on (graph.ts);
 *   - the unresolved uses, one content-addressed set per file (stored once whatever the number of syncs holding
 *     it) and one narrow row per sync and file that has any.
 */
import { createHash } from 'node:crypto';
import type { Queryable } from '../../lib/db.ts';
import type { EngineIssue } from '../../engine/types.ts';
import type { SymbolEdge, SymbolFacts, UnresolvedUse } from '../../engine/symbols/index.ts';
import { parseSymbolRef } from '../../engine/symbols/index.ts';
import { textArray } from '../../lib/pg-binary.ts';
import { errorMessage, writeInBatches } from './batch.ts';
import { GRAPH_NAME, insertEdges, SYMBOL_EDGE_LABELS, type GraphLabels, type SymbolEdgeLabelName } from './graph.ts';

export interface FactsRow {
  content_hash: string;
  language: string;
  /** The facts, or their JSON (made once for the write and the early resolver: activities/sync/helpers/early-symbols.ts). */
  facts: SymbolFacts | string;
}

/**
 * Stores the facts of analysed files as their JSON text (schema V53; a content already stored keeps its row: the
 * facts are the same).
 */
export async function writeSymbolFacts(db: Queryable, analysisKey: string, rows: readonly FactsRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const seen = new Set<string>();
  const unique = rows.filter((r) => {
    const k = `${r.content_hash}\0${r.language}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  const res = await db.query(
    `INSERT INTO symbol_facts (content_hash, language, analysis_key, facts)
     SELECT u.h, u.l, $1, u.f FROM unnest($2::text[], $3::text[], $4::text[]) AS u(h, l, f)
     ON CONFLICT DO NOTHING`,
    [
      analysisKey,
      unique.map((r) => r.content_hash),
      unique.map((r) => r.language),
      // The JSON as a binary text[] (lib/pg-binary.ts): no array-literal escaping of its quotes here, none undone there.
      textArray(unique.map((r) => (typeof r.facts === 'string' ? r.facts : JSON.stringify(r.facts)))),
    ],
  );
  return res.rowCount ?? 0;
}

export interface SyncFileFacts {
  file_path: string;
  language: string;
  facts: SymbolFacts;
}

/** The facts of every file of a sync that has some, by path order (the column is their JSON text: schema V53). */
const FACTS_OF_SYNC = `SELECT s.file_path, c.language, f.facts
     FROM sync_files s JOIN file_contents c ON c.id = s.content_id
     JOIN symbol_facts f ON f.content_hash = c.content_hash AND f.language = c.language
                        AND f.analysis_key = c.analysis_key
    WHERE s.sync_id = $1
    ORDER BY s.file_path`;

/** The facts of every file of a sync that has some, by path order. */
export async function loadSymbolFacts(db: Queryable, syncId: string): Promise<SyncFileFacts[]> {
  return (await loadSymbolFactsJson(db, syncId)).map((r) => ({ ...r, facts: JSON.parse(r.facts) as SymbolFacts }));
}

/** `loadSymbolFacts` with the facts as their JSON text, for a resolver that parses them elsewhere (its thread). */
export async function loadSymbolFactsJson(
  db: Queryable,
  syncId: string,
): Promise<Array<{ file_path: string; language: string; facts: string }>> {
  const res = await db.query<{ file_path: string; language: string; facts: string }>(FACTS_OF_SYNC, [syncId]);
  return res.rows;
}

/**
 * The graph id of every Symbol vertex of a sync that has a key, by SymbolRef (`<path>#<key>`); `files` maps the
 * sync's File vertex ids to their paths (the write steps' hand-off).
 */
export async function symbolVertices(db: Queryable, files: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const res = await db.query<{ file: string; symbol: string; key: string }>(
    `SELECT d.start_id::text AS file, d.end_id::text AS symbol,
            s.properties ->> '"key"'::ag_catalog.agtype AS key
       FROM unnest($1::text[]) AS u(v)
       JOIN ${GRAPH_NAME}.defines d ON d.start_id = u.v::ag_catalog.graphid
       JOIN ${GRAPH_NAME}."Symbol" s ON s.id = d.end_id`,
    [[...files.keys()]],
  );
  const out = new Map<string, string>();
  for (const r of res.rows) {
    if (r.key === null) continue;
    const path = files.get(r.file);
    if (path !== undefined) out.set(`${path}#${r.key}`, r.symbol);
  }
  return out;
}

export interface SymbolEdgeWriteResult {
  edges: Record<SymbolEdgeLabelName, number>;
  /** Edges whose end has no Symbol vertex in this sync (a vertex that could not be written): not written. */
  dangling: number;
  issues: EngineIssue[];
}

/** Writes the resolver's edges of one sync (statements of at most 500 rows, per-row fallback). */
export async function writeSymbolEdges(
  db: Queryable,
  ctx: { syncId: string; sourceId: string },
  edges: readonly SymbolEdge[],
  vertexOf: ReadonlyMap<string, string>,
  labels: GraphLabels,
): Promise<SymbolEdgeWriteResult> {
  const byLabel = new Map<SymbolEdgeLabelName, { s: string; t: string; p: string; from: string; to: string }[]>();
  let dangling = 0;
  const head = `{"sync_id":${JSON.stringify(ctx.syncId)},"source_id":${JSON.stringify(ctx.sourceId)}`;
  for (const e of edges) {
    const s = vertexOf.get(e.from);
    const t = vertexOf.get(e.to);
    if (s === undefined || t === undefined) {
      dangling++;
      continue;
    }
    // sync_id, source_id, provenance, confidence, and the sites where there are some.
    const p =
      `${head},"provenance":${JSON.stringify(e.provenance)},"confidence":${e.confidence}` +
      (e.lines.length > 0 ? `,"lines":${JSON.stringify(e.lines)}` : '') +
      `,"count":${e.count}}`;
    let list = byLabel.get(e.label);
    if (!list) byLabel.set(e.label, (list = []));
    list.push({ s, t, p, from: e.from, to: e.to });
  }
  const counts = Object.fromEntries(SYMBOL_EDGE_LABELS.map((l) => [l, 0])) as Record<SymbolEdgeLabelName, number>;
  const issues: EngineIssue[] = [];
  for (const label of SYMBOL_EDGE_LABELS) {
    const rows = byLabel.get(label) ?? [];
    const outcome = await writeInBatches(
      rows,
      async (batch) => [await insertEdges(db, `"${label}"`, labels[label], batch)],
      (e, err) => ({
        level: 'error',
        phase: 'graphing',
        code: 'edge_rejected',
        message: `${label} edge ${e.from} -> ${e.to} not written: ${errorMessage(err)}`,
        file_path: parseSymbolRef(e.from)?.file_path ?? e.from,
      }),
    );
    counts[label] = outcome.results.reduce((a, b) => a + b, 0);
    issues.push(...outcome.issues);
  }
  return { edges: counts, dangling, issues };
}

/** Unresolved uses as stored: the fields of UnresolvedUse without the file path (the row's). */
export interface StoredUnresolved {
  /** The key of the symbol holding the use (the part of `from` after '#'). */
  from: string;
  kind: UnresolvedUse['kind'];
  text: string;
  line: number;
  reason: UnresolvedUse['reason'];
}

/**
 * Stores the unresolved uses of one sync: per file, the set (content-addressed, shared with every sync holding the
 * same set) and the sync's row pointing at it. Returns the number of files with unresolved uses.
 */
export async function writeUnresolved(db: Queryable, syncId: string, uses: readonly UnresolvedUse[]): Promise<number> {
  const byFile = new Map<string, StoredUnresolved[]>();
  for (const u of uses) {
    const ref = parseSymbolRef(u.from);
    if (!ref) continue;
    let list = byFile.get(ref.file_path);
    if (!list) byFile.set(ref.file_path, (list = []));
    list.push({ from: ref.key, kind: u.kind, text: u.text, line: u.line, reason: u.reason });
  }
  const paths: string[] = [];
  const hashes: string[] = [];
  const counts: number[] = [];
  const sets = new Map<string, string>();
  for (const [path, list] of byFile) {
    const json = JSON.stringify(list);
    const hash = createHash('sha256').update(json).digest('hex');
    sets.set(hash, json);
    paths.push(path);
    hashes.push(hash);
    counts.push(list.length);
  }
  const setHashes = [...sets.keys()];
  for (let i = 0; i < setHashes.length; i += 500) {
    const part = setHashes.slice(i, i + 500);
    await db.query(
      `INSERT INTO symbol_unresolved_sets (hash, uses)
       SELECT decode(u.h, 'hex'), u.j::jsonb FROM unnest($1::text[], $2::text[]) AS u(h, j)
       ON CONFLICT DO NOTHING`,
      [part, part.map((h) => sets.get(h)!)],
    );
  }
  for (let i = 0; i < paths.length; i += 500) {
    await db.query(
      `INSERT INTO sync_symbol_unresolved (sync_id, file_path, set_hash, uses)
       SELECT $1, u.p, decode(u.h, 'hex'), u.n FROM unnest($2::text[], $3::text[], $4::int[]) AS u(p, h, n)
       ON CONFLICT (sync_id, file_path) DO UPDATE SET set_hash = EXCLUDED.set_hash, uses = EXCLUDED.uses`,
      [syncId, paths.slice(i, i + 500), hashes.slice(i, i + 500), counts.slice(i, i + 500)],
    );
  }
  return paths.length;
}

/**
 * The symbol graph of a sync whose files are exactly its previous sync's (same paths, same stored contents, so the
 * same facts and import targets: the resolver would give the same edges): the previous sync's edges are copied onto
 * this sync's Symbol vertices (matched by path and key) and its unresolved rows pointed at the same sets, inside the
 * database. Returns the edges copied per label; the caller compares them with what the previous sync recorded and
 * resolves afresh when they differ (a vertex or edge of the previous sync missing).
 */
export async function copySymbolGraph(
  db: Queryable,
  ctx: { syncId: string },
  previousSyncId: string,
  labels: GraphLabels,
): Promise<{ edges: Record<SymbolEdgeLabelName, number>; unresolvedFiles: number }> {
  // The previous sync's graph rows: its own, or those of the sync whose graph it shares (V50).
  const owner = await db.query<{ g: string | null }>(`SELECT graph_sync_of($1)::text AS g`, [previousSyncId]);
  const from = owner.rows[0]?.g ?? previousSyncId;
  const inserts = SYMBOL_EDGE_LABELS.map(
    (label, i) => `e${i} AS (
       INSERT INTO ${GRAPH_NAME}."${label}" (id, start_id, end_id, properties)
       SELECT ag_catalog._graphid($${3 + 2 * i}::int, nextval($${4 + 2 * i}::regclass)), a.new, b.new,
              replace(ag_catalog.agtype_out(e.properties)::text, $2::text, $1::text)::ag_catalog.agtype
         FROM m a JOIN ${GRAPH_NAME}."${label}" e ON e.start_id = a.old JOIN m b ON b.old = e.end_id
       RETURNING 1)`,
  );
  const symbolsOf = (param: string) => `SELECT f.properties ->> '"file_path"'::ag_catalog.agtype AS path,
              s.properties ->> '"key"'::ag_catalog.agtype AS key, s.id
         FROM ${GRAPH_NAME}."File" f
         JOIN ${GRAPH_NAME}.defines d ON d.start_id = f.id
         JOIN ${GRAPH_NAME}."Symbol" s ON s.id = d.end_id
        WHERE ag_catalog.agtype_access_operator(f.properties, '"sync_id"'::ag_catalog.agtype)
              = ('"' || ${param}::text || '"')::ag_catalog.agtype`;
  const res = await db.query<Record<string, string>>(
    `WITH o AS MATERIALIZED (${symbolsOf('$2')}), n AS MATERIALIZED (${symbolsOf('$1')}),
     m AS MATERIALIZED (SELECT o.id AS old, n.id AS new FROM o JOIN n USING (path, key) WHERE o.key IS NOT NULL),
     ${inserts.join(',\n     ')}
     SELECT ${SYMBOL_EDGE_LABELS.map((l, i) => `(SELECT count(*) FROM e${i}) AS "${l}"`).join(', ')}`,
    [ctx.syncId, from, ...SYMBOL_EDGE_LABELS.flatMap((l) => [labels[l].id, labels[l].seq])],
  );
  const row = res.rows[0]!;
  const edges = Object.fromEntries(SYMBOL_EDGE_LABELS.map((l) => [l, Number(row[l])])) as Record<
    SymbolEdgeLabelName,
    number
  >;
  const un = await db.query(
    `INSERT INTO sync_symbol_unresolved (sync_id, file_path, set_hash, uses)
     SELECT $1, file_path, set_hash, uses FROM sync_symbol_unresolved WHERE sync_id = $2
     ON CONFLICT (sync_id, file_path) DO UPDATE SET set_hash = EXCLUDED.set_hash, uses = EXCLUDED.uses`,
    [ctx.syncId, from],
  );
  return { edges, unresolvedFiles: un.rowCount ?? 0 };
}

/** Whether a sync holds exactly the files (paths and stored contents) of another. */
export async function sameFiles(db: Queryable, syncId: string, otherSyncId: string): Promise<boolean> {
  const res = await db.query<{ same: boolean }>(
    `SELECT (SELECT count(*) FROM sync_files WHERE sync_id = $1) = (SELECT count(*) FROM sync_files WHERE sync_id = $2)
        AND NOT EXISTS (
          SELECT 1 FROM sync_files a
           WHERE a.sync_id = $1
             AND NOT EXISTS (SELECT 1 FROM sync_files b
                              WHERE b.sync_id = $2 AND b.file_path = a.file_path AND b.content_id = a.content_id)
        ) AS same`,
    [syncId, otherSyncId],
  );
  return res.rows[0]?.same === true;
}
