/**
 * One sync's share of the merged graph, loaded once and kept while the sync cannot change: its file records (the
 * nodes) and its depends_on edges as pairs of indices into those files. Reading edge properties out of AGE's agtype
 * costs about a microsecond per value, so a 40k-edge sync takes tens of milliseconds to read; completed, failed,
 * cancelled and cleaned syncs never change their graph again, so their snapshots are cached (see cache.ts).
 */
import { graphSyncOf, type ReadTx } from '../db/read.ts';
import { SnapshotCache } from '../caches.ts';
import type { SnapshotSync, SyncSnapshot } from './snapshot-types.ts';

export type { SnapshotSync, SyncSnapshot };

interface FileRow {
  file_path: string;
  name: string;
  type: string;
  domain: string;
  content_hash: string;
}

interface EdgeRow {
  s: string;
  t: string;
  w: number | null;
}

export async function loadSnapshot(
  tx: ReadTx,
  sync: { id: string; source_id: string; status: string },
): Promise<SyncSnapshot> {
  const files =
    sync.status === 'cleaned'
      ? []
      : (
          await tx.query<FileRow>(
            `SELECT file_path, name, type, domain, content_hash FROM file_records WHERE sync_id = $1`,
            [sync.id],
          )
        ).rows;
  const index = new Map<string, number>();
  files.forEach((f, i) => index.set(f.file_path, i));
  // The graph rows are the sync's own, or those of the sync whose graph it shares (an unchanged re-sync, V50).
  const graphOf = files.length === 0 ? null : await graphSyncOf(tx, sync.id);
  // An edge belongs to the sync of the File it starts from (V10); ends are read as paths once per vertex.
  const edges =
    graphOf === null
      ? []
      : (
          await tx.query<EdgeRow>(
            // The end vertex is looked up by its id (an index), not joined to the start set a second time: right
            // after a sync its sync_id is a value the statistics have not seen, the start set is estimated at a row
            // or two, and a nested loop over that set for each edge took 60 s on the Go standard library.
            `WITH v AS (
               SELECT id, properties ->> '"file_path"'::ag_catalog.agtype AS p
                 FROM service."File"
                WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype)
                      = $1::text::ag_catalog.agtype
             )
             SELECT a.p AS s, b.properties ->> '"file_path"'::ag_catalog.agtype AS t,
                    (e.properties ->> '"weight"'::ag_catalog.agtype)::float8 AS w
               FROM v a
               JOIN service.depends_on e ON e.start_id = a.id
               JOIN service."File" b ON b.id = e.end_id
              WHERE ag_catalog.agtype_access_operator(b.properties, '"sync_id"'::ag_catalog.agtype)
                    = $1::text::ag_catalog.agtype`,
            [JSON.stringify(graphOf)],
          )
        ).rows;
  const edgeFrom = new Int32Array(edges.length);
  const edgeTo = new Int32Array(edges.length);
  const edgeWeight = new Float64Array(edges.length);
  let n = 0;
  let bytes = 200;
  for (const e of edges) {
    const s = index.get(e.s);
    const t = index.get(e.t);
    if (s === undefined || t === undefined) continue; // a vertex without a file record: not a node of this sync
    edgeFrom[n] = s;
    edgeTo[n] = t;
    edgeWeight[n] = e.w ?? 1;
    n++;
  }
  for (const f of files) bytes += 2 * (f.file_path.length + f.name.length + f.type.length + f.domain.length) + 200;
  bytes += n * 16;
  return {
    syncId: sync.id,
    sourceId: sync.source_id,
    paths: files.map((f) => f.file_path),
    names: files.map((f) => f.name),
    types: files.map((f) => f.type),
    domains: files.map((f) => f.domain),
    hashes: files.map((f) => f.content_hash),
    edgeFrom: edgeFrom.subarray(0, n),
    edgeTo: edgeTo.subarray(0, n),
    edgeWeight: edgeWeight.subarray(0, n),
    bytes,
  };
}

/** The sync's snapshot: from the cache when the sync is final and was read before, else read (and cached if final). */
export async function snapshotOf(tx: ReadTx, cache: SnapshotCache, sync: SnapshotSync): Promise<SyncSnapshot> {
  const key = SnapshotCache.key(sync);
  let snap = key === undefined ? undefined : cache.get(key);
  if (!snap) {
    snap = await loadSnapshot(tx, sync);
    if (key !== undefined) cache.set(key, snap);
  }
  return snap;
}
