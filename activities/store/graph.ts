/**
 * Graph writes for one sync: File and Symbol vertices, depends_on and defines edges in the AGE graph `service`.
 *
 * Rows go straight into AGE's label tables (INSERT ... SELECT from unnest, ids from the label's own sequence), which
 * is ~25x faster than Cypher CREATE with MATCH (see docs/decisions.md, "Graph storage"). Cypher reads see them as
 * usual. The arrays travel as binary text[] parameters (lib/pg-binary.ts): the properties are JSON, whose quotes an
 * array literal would escape in Node and unescape in PostgreSQL. This relies on AGE 1.5's storage layout (label table = (id graphid, [start_id, end_id,] properties
 * agtype)); the stack pins AGE 1.5 and test/store checks the layout through Cypher.
 *
 * Idempotent: the sync's existing graph rows are deleted first, so a retried activity leaves what a clean run leaves.
 *
 * The pipeline writes in two steps so most of the graph is written while files are still being parsed:
 * `writeFileGraph` (File and Symbol vertices, defines edges) per batch of analysed files, then `writeDependsOn` once
 * every File vertex exists. `writeGraph` does both for a whole sync.
 */
import type { Queryable } from '../../lib/db.ts';
import type { Dependency, EngineIssue, SymbolInfo } from '../../engine/types.ts';
import { textArray } from '../../lib/pg-binary.ts';
import { errorMessage, writeInBatches } from './batch.ts';

export const GRAPH_NAME = 'service';

export interface GraphFile {
  fileId: string;
  file_path: string;
  name: string;
  type: string;
  domain: string;
  symbols: readonly SymbolInfo[];
  dependencies: readonly Dependency[];
}

export interface GraphWriteResult {
  fileVertices: number;
  symbolVertices: number;
  dependsOnEdges: number;
  definesEdges: number;
  issues: EngineIssue[];
}

interface Label {
  id: number;
  seq: string;
}

/** The Symbol -> Symbol edge labels of the symbol graph (issue 28, schema V28; docs/graph.md "Symbol graph"). */
export const SYMBOL_EDGE_LABELS = ['calls', 'inherits', 'implements', 'overrides', 'references'] as const;
export type SymbolEdgeLabelName = (typeof SYMBOL_EDGE_LABELS)[number];

const LABELS = ['File', 'Symbol', 'depends_on', 'defines', ...SYMBOL_EDGE_LABELS] as const;

/** Ids and sequences of the graph's labels (load once per sync with `loadGraphLabels`). */
export type GraphLabels = Record<(typeof LABELS)[number], Label>;

export async function loadGraphLabels(db: Queryable): Promise<GraphLabels> {
  const res = await db.query<{ name: string; id: number; seq: string }>(
    `SELECT l.name, l.id, format('%I.%I', g.namespace::regnamespace::text, l.seq_name) AS seq
       FROM ag_catalog.ag_label l JOIN ag_catalog.ag_graph g ON g.graphid = l.graph
      WHERE g.name = $1 AND l.name = ANY($2::text[])`,
    [GRAPH_NAME, LABELS],
  );
  const out: Partial<Record<string, Label>> = {};
  for (const r of res.rows) out[r.name] = { id: r.id, seq: r.seq };
  for (const name of LABELS) {
    if (!out[name]) throw new Error(`graph ${GRAPH_NAME} has no label ${name}: is the schema migrated?`);
  }
  return out as GraphLabels;
}

/** Inserts vertices; returns their graph ids in input order. */
async function insertVertices(db: Queryable, table: string, label: Label, props: readonly string[]): Promise<string[]> {
  const res = await db.query<{ id: string }>(
    `WITH src AS (
       SELECT ag_catalog._graphid($1::int, nextval($2::regclass)) AS id, u.p, u.n
         FROM unnest($3::text[]) WITH ORDINALITY AS u(p, n)
     ), ins AS (
       INSERT INTO ${GRAPH_NAME}.${table} (id, properties) SELECT id, p::ag_catalog.agtype FROM src
     )
     SELECT id::text AS id FROM src ORDER BY n`,
    [label.id, label.seq, textArray(props)],
  );
  return res.rows.map((r) => r.id);
}

/** Inserts edges into a label table (`table` as written in SQL, e.g. `"references"`); returns how many. */
export async function insertEdges(
  db: Queryable,
  table: string,
  label: Label,
  edges: readonly { s: string; t: string; p: string }[],
): Promise<number> {
  const res = await db.query(
    `INSERT INTO ${GRAPH_NAME}.${table} (id, start_id, end_id, properties)
     SELECT ag_catalog._graphid($1::int, nextval($2::regclass)), u.s::ag_catalog.graphid, u.t::ag_catalog.graphid,
            u.p::ag_catalog.agtype
       FROM unnest($3::text[], $4::text[], $5::text[]) AS u(s, t, p)`,
    [
      label.id,
      label.seq,
      textArray(edges.map((e) => e.s)),
      textArray(edges.map((e) => e.t)),
      textArray(edges.map((e) => e.p)),
    ],
  );
  return res.rowCount ?? 0;
}

export interface FileGraphResult {
  /** file_path → graph id of its File vertex, for the files of this call whose vertex was written. */
  vertexByPath: Map<string, string>;
  /**
   * SymbolRef (`<path>#<key>`) → graph id of its Symbol vertex, for the symbols with a key whose vertex and defines
   * edge were written (what symbolVertices reads back from the database).
   */
  symbolVertexByRef?: Map<string, string>;
  symbolVertices: number;
  definesEdges: number;
  issues: EngineIssue[];
}

/**
 * A Symbol vertex's properties: the specification's (symbol_id, file_id, sync_id, source_id, name, kind, line) and,
 * where the engine gave them, the symbol graph's `key`, `symbol_kind` and `end_line` (issue 28). The signature and
 * doc comment are not copied into every sync's vertex: they live once per content (file_content_symbols).
 */
export function symbolVertexProperties(
  fileId: string,
  ctx: { syncId: string; sourceId: string },
  symbol: SymbolInfo,
): Record<string, unknown> {
  return {
    symbol_id: `${fileId}:${symbol.name}:${symbol.line}`,
    file_id: fileId,
    sync_id: ctx.syncId,
    source_id: ctx.sourceId,
    name: symbol.name,
    kind: symbol.kind,
    line: symbol.line,
    ...(symbol.key !== undefined ? { key: symbol.key } : {}),
    ...(symbol.symbol_kind !== undefined ? { symbol_kind: symbol.symbol_kind } : {}),
    ...(symbol.end_line !== undefined ? { end_line: symbol.end_line } : {}),
  };
}

/** File vertices, their Symbol vertices and the defines edges between them, in batches of 500. */
export async function writeFileGraph(
  db: Queryable,
  ctx: { syncId: string; sourceId: string },
  files: readonly GraphFile[],
  labels?: GraphLabels,
): Promise<FileGraphResult> {
  const L = labels ?? (await loadGraphLabels(db));
  const issues: EngineIssue[] = [];
  const { syncId, sourceId } = ctx;

  // File vertices.
  const fileOutcome = await writeInBatches(
    files,
    async (batch) => {
      const props = batch.map((f) =>
        JSON.stringify({
          file_id: f.fileId,
          sync_id: syncId,
          source_id: sourceId,
          name: f.name,
          type: f.type,
          domain: f.domain,
          file_path: f.file_path,
        }),
      );
      const ids = await insertVertices(db, '"File"', L.File, props);
      return batch.map((f, i) => [f.file_path, ids[i]!] as const);
    },
    (f, err) => ({
      level: 'error',
      phase: 'graphing',
      code: 'vertex_rejected',
      message: `File vertex not written: ${errorMessage(err)}`,
      file_path: f.file_path,
    }),
  );
  issues.push(...fileOutcome.issues);
  const vertexByPath = new Map<string, string>(fileOutcome.results);

  // Symbol vertices.
  const definesProps = JSON.stringify({ sync_id: syncId, source_id: sourceId });
  const symbolRows: { file: GraphFile; symbol: SymbolInfo; fileVertex: string }[] = [];
  for (const file of files) {
    const fileVertex = vertexByPath.get(file.file_path);
    if (fileVertex === undefined) continue;
    for (const symbol of file.symbols) symbolRows.push({ file, symbol, fileVertex });
  }
  const symbolOutcome = await writeInBatches(
    symbolRows,
    async (batch) => {
      const props = batch.map(({ file, symbol }) => JSON.stringify(symbolVertexProperties(file.fileId, ctx, symbol)));
      const ids = await insertVertices(db, '"Symbol"', L.Symbol, props);
      return batch.map((row, i) => ({
        s: row.fileVertex,
        t: ids[i]!,
        p: definesProps,
        ref: row.symbol.key === undefined ? undefined : `${row.file.file_path}#${row.symbol.key}`,
      }));
    },
    ({ file, symbol }, err) => ({
      level: 'error',
      phase: 'graphing',
      code: 'vertex_rejected',
      message: `Symbol vertex ${symbol.name} not written: ${errorMessage(err)}`,
      file_path: file.file_path,
    }),
  );
  issues.push(...symbolOutcome.issues);

  // defines edges (file → symbol).
  const unlinked: string[] = [];
  const definesOutcome = await writeInBatches(
    symbolOutcome.results,
    async (batch) => [await insertEdges(db, 'defines', L.defines, batch)],
    (e, err) => {
      unlinked.push(e.t);
      return {
        level: 'error',
        phase: 'graphing',
        code: 'edge_rejected',
        message: `defines edge not written (its Symbol vertex is dropped): ${errorMessage(err)}`,
        context: { start: e.s, end: e.t },
      };
    },
  );
  issues.push(...definesOutcome.issues);
  // A sync's Symbol vertices are found through its File vertices' defines edges (schema V20: no sync_id index on
  // Symbol), so a symbol whose edge could not be written is not left behind unreachable.
  if (unlinked.length > 0) {
    await db.query(
      `DELETE FROM ${GRAPH_NAME}."Symbol" WHERE id = ANY(SELECT u::ag_catalog.graphid FROM unnest($1::text[]) u)`,
      [unlinked],
    );
  }
  const dropped = new Set(unlinked);
  const symbolVertexByRef = new Map<string, string>();
  for (const r of symbolOutcome.results)
    if (r.ref !== undefined && !dropped.has(r.t)) symbolVertexByRef.set(r.ref, r.t);
  return {
    vertexByPath,
    symbolVertexByRef,
    symbolVertices: symbolOutcome.results.length - unlinked.length,
    definesEdges: definesOutcome.results.reduce((a, b) => a + b, 0),
    issues,
  };
}

/** What the depends_on step needs of a file. */
export type DependingFile = Pick<GraphFile, 'file_path' | 'dependencies'>;

/**
 * depends_on edges (file → file), one per (source, target) with the summed weight; every File vertex of the sync
 * must already be in `vertexByPath`.
 */
export async function writeDependsOn(
  db: Queryable,
  ctx: { syncId: string; sourceId: string },
  files: readonly DependingFile[],
  vertexByPath: ReadonlyMap<string, string>,
  labels?: GraphLabels,
): Promise<{ dependsOnEdges: number; issues: EngineIssue[] }> {
  const L = labels ?? (await loadGraphLabels(db));
  const { syncId, sourceId } = ctx;
  const issues: EngineIssue[] = [];
  const edges: { s: string; t: string; p: string; from: string; to: string }[] = [];
  for (const file of files) {
    const s = vertexByPath.get(file.file_path);
    if (s === undefined) continue;
    const weights = new Map<string, number>();
    for (const dep of file.dependencies) {
      if (dep.target_path === file.file_path) continue;
      weights.set(dep.target_path, (weights.get(dep.target_path) ?? 0) + dep.weight);
    }
    for (const [target, weight] of weights) {
      const t = vertexByPath.get(target);
      if (t === undefined) {
        issues.push({
          level: 'warning',
          phase: 'graphing',
          code: 'edge_target_missing',
          message: `depends_on target ${target} has no File vertex in this sync`,
          file_path: file.file_path,
          context: { target_path: target },
        });
        continue;
      }
      edges.push({
        s,
        t,
        p: JSON.stringify({ sync_id: syncId, source_id: sourceId, weight }),
        from: file.file_path,
        to: target,
      });
    }
  }
  const dependsOutcome = await writeInBatches(
    edges,
    async (batch) => [await insertEdges(db, 'depends_on', L.depends_on, batch)],
    (e, err) => ({
      level: 'error',
      phase: 'graphing',
      code: 'edge_rejected',
      message: `depends_on edge to ${e.to} not written: ${errorMessage(err)}`,
      file_path: e.from,
    }),
  );
  issues.push(...dependsOutcome.issues);
  return { dependsOnEdges: dependsOutcome.results.reduce((a, b) => a + b, 0), issues };
}

export async function writeGraph(
  db: Queryable,
  ctx: { syncId: string; sourceId: string },
  files: readonly GraphFile[],
): Promise<GraphWriteResult> {
  const L = await loadGraphLabels(db);
  await db.query('SELECT delete_sync_graph($1)', [ctx.syncId]);
  const fg = await writeFileGraph(db, ctx, files, L);
  const dep = await writeDependsOn(db, ctx, files, fg.vertexByPath, L);
  return {
    fileVertices: fg.vertexByPath.size,
    symbolVertices: fg.symbolVertices,
    dependsOnEdges: dep.dependsOnEdges,
    definesEdges: fg.definesEdges,
    issues: [...fg.issues, ...dep.issues],
  };
}
