/**
 * Everything a sync stored, without ids and timestamps, keyed by path: file records (every other column, vectors
 * included), chunks, File and Symbol vertices, depends_on and defines edges. Two syncs of the same commit must give
 * equal snapshots whether they were full or incremental (issue 12's contract), whatever their source.
 */
import type { Queryable } from '../../lib/db.ts';

export interface SyncSnapshot {
  files: string[];
  chunks: string[];
  fileVertices: string[];
  symbolVertices: string[];
  dependsOn: string[];
  defines: string[];
  /** The symbol graph (issue 28): calls, inherits, implements, overrides, references, by `<path>#<key>`. */
  symbolEdges: string[];
  /** Unresolved uses per file. */
  unresolved: string[];
}

const agSync = `ag_catalog.agtype_access_operator(v.properties, '"sync_id"'::ag_catalog.agtype) = $1::text::ag_catalog.agtype`;

function without(o: Record<string, unknown>, keys: string[]): string {
  const copy: Record<string, unknown> = {};
  for (const k of Object.keys(o).sort()) if (!keys.includes(k)) copy[k] = o[k];
  return JSON.stringify(copy);
}

export async function syncSnapshot(
  db: Queryable,
  syncId: string,
  o: { descriptions?: boolean } = {},
): Promise<SyncSnapshot> {
  const ignoreFile = ['id', 'sync_id', 'source_id', 'created_at'];
  if (!o.descriptions) ignoreFile.push('description', 'description_generated_at');
  const files = (
    await db.query<Record<string, unknown>>(
      `SELECT f.*, f.embedding::text AS embedding FROM file_records f WHERE f.sync_id = $1 ORDER BY f.file_path`,
      [syncId],
    )
  ).rows.map((r) => without(r, ignoreFile));
  const chunks = (
    await db.query<Record<string, unknown>>(
      `SELECT f.file_path, c.*, c.embedding::text AS embedding
         FROM content_chunks c JOIN file_records f ON f.id = c.file_id
        WHERE c.sync_id = $1 ORDER BY f.file_path, c.chunk_index`,
      [syncId],
    )
  ).rows.map((r) => without(r, ['id', 'file_id', 'sync_id', 'created_at']));
  // The sync's graph: its own rows, or those of the sync whose graph it shares (an unchanged re-sync, schema V50),
  // whose ids are that sync's own.
  const graphId =
    (await db.query<{ g: string | null }>(`SELECT graph_sync_of($1)::text AS g`, [syncId])).rows[0]?.g ?? syncId;
  const json = { text: '', key: JSON.stringify(graphId) };
  const records = (
    await db.query<{ id: string; file_path: string; source_id: string }>(
      `SELECT id, file_path, source_id FROM file_records WHERE sync_id = $1`,
      [graphId],
    )
  ).rows;
  const pathOf = new Map(records.map((r) => [r.id, r.file_path]));
  const sourceId = records[0]?.source_id;
  // The ids a snapshot leaves out must still be this sync's own: file_id a file record of the sync (of the same
  // path), source_id the sync's source, symbol_id `<file_id>:<name>:<line>`.
  const ids = (p: Record<string, unknown>, path: unknown): string =>
    pathOf.get(p.file_id as string) === path && p.source_id === sourceId ? '' : ' (ids of another sync)';
  const fileVertices = (
    await db.query<{ p: string }>(
      `SELECT ag_catalog.agtype_out(v.properties)::text AS p FROM service."File" v WHERE ${agSync}`,
      [json.key],
    )
  ).rows
    .map((r) => {
      const p = JSON.parse(r.p) as Record<string, unknown>;
      return without(p, ['file_id', 'sync_id', 'source_id']) + ids(p, p.file_path);
    })
    .sort();
  const symbolVertices = (
    await db.query<{ p: string }>(
      `SELECT ag_catalog.agtype_out(v.properties)::text AS p FROM service."Symbol" v WHERE ${agSync}`,
      [json.key],
    )
  ).rows
    .map((r) => {
      const p = JSON.parse(r.p) as Record<string, unknown>;
      const path = pathOf.get(p.file_id as string);
      const own = [p.file_id, p.name, p.line].map((x) => String(x)).join(':');
      const symbolId = p.symbol_id === own ? '' : ' (symbol_id of another file)';
      return `${path} ${without(p, ['symbol_id', 'file_id', 'sync_id', 'source_id'])}${ids(p, path)}${symbolId}`;
    })
    .sort();
  const edges = async (label: string, end: string) =>
    (
      await db.query<{ s: string; t: string; p: string }>(
        `SELECT a.properties ->> '"file_path"'::ag_catalog.agtype AS s, ${end} AS t, ag_catalog.agtype_out(e.properties)::text AS p
           FROM service."File" a JOIN service.${label} e ON e.start_id = a.id JOIN service._ag_label_vertex b ON b.id = e.end_id
          WHERE ag_catalog.agtype_access_operator(a.properties, '"sync_id"'::ag_catalog.agtype) = $1::text::ag_catalog.agtype`,
        [json.key],
      )
    ).rows
      .map((r) => {
        const p = JSON.parse(r.p) as Record<string, unknown>;
        const own = p.source_id === sourceId && p.sync_id === graphId ? '' : ' (ids of another sync)';
        return `${r.s} -> ${r.t} ${without(p, ['sync_id', 'source_id'])}${own}`;
      })
      .sort();
  const symbolRefs = new Map(
    (
      await db.query<{ id: string; path: string; key: string | null }>(
        `SELECT s.id::text AS id, a.properties ->> '"file_path"'::ag_catalog.agtype AS path,
                s.properties ->> '"key"'::ag_catalog.agtype AS key
           FROM service."File" a JOIN service.defines d ON d.start_id = a.id JOIN service."Symbol" s ON s.id = d.end_id
          WHERE ag_catalog.agtype_access_operator(a.properties, '"sync_id"'::ag_catalog.agtype) = $1::text::ag_catalog.agtype`,
        [json.key],
      )
    ).rows.map((r) => [r.id, `${r.path}#${r.key ?? '(no key)'}`]),
  );
  const symbolEdges: string[] = [];
  for (const label of ['calls', 'inherits', 'implements', 'overrides', 'references']) {
    const rows = await db.query<{ s: string; t: string; p: string }>(
      `SELECT e.start_id::text AS s, e.end_id::text AS t, ag_catalog.agtype_out(e.properties)::text AS p
         FROM service."${label}" e WHERE e.start_id = ANY($1::text[]::ag_catalog.graphid[])`,
      [[...symbolRefs.keys()]],
    );
    for (const r of rows.rows) {
      const p = JSON.parse(r.p) as Record<string, unknown>;
      const own = p.source_id === sourceId && p.sync_id === graphId ? '' : ' (ids of another sync)';
      const end = symbolRefs.get(r.t) ?? '(a vertex of another sync)';
      symbolEdges.push(`${label} ${symbolRefs.get(r.s)} -> ${end} ${without(p, ['sync_id', 'source_id'])}${own}`);
    }
  }
  symbolEdges.sort();
  const unresolved = (
    await db.query<{ file_path: string; uses: unknown }>(
      `SELECT u.file_path, s.uses FROM sync_symbol_unresolved u JOIN symbol_unresolved_sets s ON s.hash = u.set_hash
        WHERE u.sync_id = $1 ORDER BY u.file_path`,
      [graphId],
    )
  ).rows.map((r) => `${r.file_path} ${JSON.stringify(r.uses)}`);
  return {
    symbolEdges,
    unresolved,
    files,
    chunks,
    fileVertices,
    symbolVertices,
    dependsOn: await edges('depends_on', `b.properties ->> '"file_path"'::ag_catalog.agtype`),
    defines: await edges(
      'defines',
      `(b.properties ->> '"name"'::ag_catalog.agtype) || ':' || (b.properties ->> '"line"'::ag_catalog.agtype)`,
    ),
  };
}
