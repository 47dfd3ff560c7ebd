/**
 * The precise tier's rows (issue 29; activities/precise decides): the sync's precise setting and languages, the live
 * precise workers (precise_workers), the results stored per commit (precise_results), and the heuristic edges a
 * precise result replaces.
 */
import type { Queryable } from '../../lib/db.ts';
import { GRAPH_NAME } from './graph.ts';

/** The sync's `precise` setting (its config snapshot) and whether it shares another sync's graph. */
export async function preciseSetting(
  db: Queryable,
  syncId: string,
  sourceId: string,
): Promise<{ precise: unknown; shared: boolean } | null> {
  const cfg = await db.query<{ precise: unknown; shared: boolean }>(
    `SELECT config_snapshot -> 'precise' AS precise, graph_sync_id IS NOT NULL AS shared
       FROM sync_runs WHERE id = $1 AND source_id = $2`,
    [syncId, sourceId],
  );
  return cfg.rows[0] ?? null;
}

/** The languages of the sync's files. */
export async function syncLanguages(db: Queryable, syncId: string): Promise<string[]> {
  const r = await db.query<{ language: string }>(
    `SELECT DISTINCT c.language FROM sync_files s JOIN file_contents c ON c.id = s.content_id
      WHERE s.sync_id = $1`,
    [syncId],
  );
  return r.rows.map((x) => x.language);
}

/** A live precise worker's declaration: its task queues and, per language, its indexer. */
export interface PreciseWorkerRow {
  task_queues: string[];
  indexers: Record<string, { version: string; queue: string; wall_ms: number }>;
}

/** The precise workers seen within the last `ttlSeconds`, the most recently seen first. */
export async function livePreciseWorkers(db: Queryable, ttlSeconds: number): Promise<PreciseWorkerRow[]> {
  const workers = await db.query<PreciseWorkerRow>(
    `SELECT task_queues, indexers FROM precise_workers
      WHERE last_seen > now() - make_interval(secs => $1) ORDER BY last_seen DESC`,
    [ttlSeconds],
  );
  return workers.rows;
}

/** Per language, the indexer versions of the precise workers seen within the last `ttlSeconds`. */
export async function livePreciseVersions(db: Queryable, ttlSeconds: number): Promise<Map<string, Set<string>>> {
  const workers = await db.query<{ language: string; version: string | null }>(
    `SELECT DISTINCT i.key AS language, i.value ->> 'version' AS version
       FROM precise_workers w, jsonb_each(w.indexers) i
      WHERE w.last_seen > now() - make_interval(secs => $1)`,
    [ttlSeconds],
  );
  const live = new Map<string, Set<string>>();
  for (const w of workers.rows) {
    const versions = live.get(w.language) ?? new Set<string>();
    versions.add(w.version ?? '');
    live.set(w.language, versions);
  }
  return live;
}

/** The result stored for this source, commit, language and indexer key (toolKey), if any. */
export async function storedPreciseResult<T>(
  db: Queryable,
  sourceId: string,
  commit: string,
  language: string,
  key: string,
): Promise<T | null> {
  const r = await db.query<{ result: T }>(
    `SELECT result FROM precise_results WHERE source_id = $1 AND commit_sha = $2 AND language = $3 AND tool_key = $4`,
    [sourceId, commit, language, key],
  );
  return r.rows[0]?.result ?? null;
}

/** Stores a commit's result for later syncs of the same commit (the first writer wins), with its index if given. */
export async function storePreciseResult(
  db: Queryable,
  sourceId: string,
  commit: string,
  language: string,
  key: string,
  result: unknown,
  index?: { tree: Record<string, string>; layout: unknown; bytes: Buffer },
): Promise<void> {
  await db.query(
    `INSERT INTO precise_results (source_id, commit_sha, language, tool_key, result, index_tree, index_layout, index_bytes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
    [
      sourceId,
      commit,
      language,
      key,
      JSON.stringify(result),
      index ? JSON.stringify(index.tree) : null,
      index ? JSON.stringify(index.layout) : null,
      index?.bytes ?? null,
    ],
  );
}

/** The newest index stored for this source, language and indexer key at another commit: its tree and layout. */
export async function latestStoredIndex<L>(
  db: Queryable,
  sourceId: string,
  language: string,
  key: string,
  notCommit: string,
): Promise<{ commit: string; tree: Record<string, string>; layout: L } | null> {
  const r = await db.query<{ commit: string; tree: Record<string, string>; layout: L }>(
    `SELECT commit_sha AS commit, index_tree AS tree, index_layout AS layout FROM precise_results
      WHERE source_id = $1 AND language = $2 AND tool_key = $3 AND commit_sha <> $4 AND index_layout IS NOT NULL
      ORDER BY created_at DESC LIMIT 1`,
    [sourceId, language, key, notCommit],
  );
  return r.rows[0] ?? null;
}

/** The index bytes stored with a commit's result. */
export async function storedIndexBytes(
  db: Queryable,
  sourceId: string,
  commit: string,
  language: string,
  key: string,
): Promise<Buffer | null> {
  const r = await db.query<{ bytes: Buffer | null }>(
    `SELECT index_bytes AS bytes FROM precise_results
      WHERE source_id = $1 AND commit_sha = $2 AND language = $3 AND tool_key = $4`,
    [sourceId, commit, language, key],
  );
  return r.rows[0]?.bytes ?? null;
}

const HIERARCHY = ['inherits', 'implements', 'overrides'] as const;

/**
 * Deletes the heuristic hierarchy edges (inherits, implements, overrides, whatever their label) between the pairs of
 * vertices the index relates: the index's own edge replaces them. Hierarchy edges the index has no pair for stay
 * (an indexer's silence about a supertype is no proof: some do not write relationships at all).
 */
export async function deleteRelated(
  db: Queryable,
  pairs: ReadonlyArray<[string, string]>,
  removed: Map<string, number>,
): Promise<number> {
  if (pairs.length === 0) return 0;
  let n = 0;
  for (const label of HIERARCHY) {
    const r = await db.query<{ s: string; t: string; c: string | null }>(
      `DELETE FROM ${GRAPH_NAME}."${label}" e USING unnest($1::text[], $2::text[]) AS p(s, t)
        WHERE e.start_id = p.s::ag_catalog.graphid AND e.end_id = p.t::ag_catalog.graphid
        RETURNING e.start_id::text AS s, e.end_id::text AS t,
                  (e.properties ->> '"confidence"'::ag_catalog.agtype)::text AS c`,
      [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
    );
    for (const x of r.rows) removed.set(`${label}\u0000${x.s}\u0000${x.t}`, Number(x.c ?? 0));
    n += r.rowCount ?? 0;
  }
  return n;
}

/** Deletes the heuristic edges the precise result replaces; returns them as (label, from vertex, to vertex) keys. */
export async function deleteCovered(
  db: Queryable,
  covered: readonly string[],
  files: ReadonlyMap<string, string>,
): Promise<{ removed: Map<string, number>; callsDeleted: number; referencesDeleted: number }> {
  const vertices = [...files].filter(([, path]) => covered.includes(path)).map(([v]) => v);
  const removed = new Map<string, number>();
  if (vertices.length === 0) return { removed, callsDeleted: 0, referencesDeleted: 0 };
  const calls = await db.query<{ s: string; t: string; c: string | null }>(
    `DELETE FROM ${GRAPH_NAME}.calls e USING ${GRAPH_NAME}.defines d
      WHERE d.start_id = ANY($1::text[]::ag_catalog.graphid[]) AND e.start_id = d.end_id
      RETURNING e.start_id::text AS s, e.end_id::text AS t,
                (e.properties ->> '"confidence"'::ag_catalog.agtype)::text AS c`,
    [vertices],
  );
  const refs = await db.query<{ s: string; t: string; c: string | null }>(
    `DELETE FROM ${GRAPH_NAME}."references" e USING ${GRAPH_NAME}.defines d, ${GRAPH_NAME}."Symbol" t
      WHERE d.start_id = ANY($1::text[]::ag_catalog.graphid[]) AND e.start_id = d.end_id AND t.id = e.end_id
        AND (t.properties ->> '"kind"'::ag_catalog.agtype)::text IN ('function', 'method')
      RETURNING e.start_id::text AS s, e.end_id::text AS t,
                (e.properties ->> '"confidence"'::ag_catalog.agtype)::text AS c`,
    [vertices],
  );
  for (const r of calls.rows) removed.set(`calls\u0000${r.s}\u0000${r.t}`, Number(r.c ?? 0));
  for (const r of refs.rows) removed.set(`references\u0000${r.s}\u0000${r.t}`, Number(r.c ?? 0));
  return { removed, callsDeleted: calls.rowCount ?? 0, referencesDeleted: refs.rowCount ?? 0 };
}
