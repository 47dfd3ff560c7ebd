/**
 * The rows behind graph sharing (schema V50; activities/graph-alias.ts decides): which sync's graph rows a sync
 * uses (`graph_sync_id`), what its predecessor recorded, the graph's own counts, and the precise workers live now.
 */
import type { PoolClient, Queryable } from '../../lib/db.ts';

/** The sync whose graph `syncId` shares (graph_sync_id), if any. */
export async function graphAlias(db: Queryable, syncId: string): Promise<string | null> {
  const r = await db.query<{ g: string | null }>(`SELECT graph_sync_id AS g FROM sync_runs WHERE id = $1`, [syncId]);
  return r.rows[0]?.g ?? null;
}

/** Per language, the precise tier's outcome a sync recorded in its stats. */
export type PreciseOutcomes = Record<string, { status: string; reason?: string; indexer?: string }>;

/** What a sync that may share `previousSyncId`'s graph needs to know of it (see sharingCandidate). */
export interface SharingCandidate {
  /** The sync whose graph rows the previous sync's graph is (itself, or the sync it shares). */
  owner: string;
  files: number;
  defines: number | null;
  dangling: number | null;
  precise: PreciseOutcomes | null;
  languages: string[];
}

/**
 * The previous sync when it is completed and ran with the precise setting of `syncId`: its graph's owner, its file
 * count, the defines edges and dangling symbol edges it recorded, its precise outcomes and its files' languages. Its
 * row is locked (FOR SHARE) against a concurrent clean until the transaction ends.
 */
export async function sharingCandidate(
  tx: PoolClient,
  previousSyncId: string,
  syncId: string,
): Promise<SharingCandidate | null> {
  const prev = await tx.query<SharingCandidate>(
    `SELECT coalesce(r.graph_sync_id, r.id) AS owner, r.stats -> 'precise' AS precise,
            (SELECT coalesce(array_agg(DISTINCT c.language), '{}') FROM sync_files f
               JOIN file_contents c ON c.id = f.content_id WHERE f.sync_id = r.id) AS languages,
            (SELECT count(*)::int FROM sync_files f WHERE f.sync_id = r.id) AS files,
            (r.stats -> 'edges' ->> 'defines')::int AS defines,
            (SELECT (s.result ->> 'dangling')::int FROM sync_steps s WHERE s.sync_id = r.id AND s.step = 'symbols')
              AS dangling
       FROM sync_runs r
      WHERE r.id = $1 AND r.status = 'completed'
        -- The precise tier's setting decides edges too: a sync that would run it does not share one that did not.
        AND (r.config_snapshot -> 'precise') IS NOT DISTINCT FROM
            (SELECT n.config_snapshot -> 'precise' FROM sync_runs n WHERE n.id = $2)
      FOR SHARE OF r`,
    [previousSyncId, syncId],
  );
  return prev.rows[0] ?? null;
}

/** The File vertices and their defines edges the graph of `owner` holds. */
export async function graphFileCounts(db: Queryable, owner: string): Promise<{ files: number; defines: number }> {
  const whole = await db.query<{ files: number; defines: number }>(
    `WITH v AS (
       SELECT id FROM service."File"
        WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype)
              = $1::text::ag_catalog.agtype
     )
     SELECT (SELECT count(*)::int FROM v) AS files,
            (SELECT count(*)::int FROM v JOIN service.defines d ON d.start_id = v.id) AS defines`,
    [JSON.stringify(owner)],
  );
  return whole.rows[0]!;
}

/** Records that `syncId`'s graph is `owner`'s rows. */
export async function setGraphAlias(db: Queryable, syncId: string, owner: string): Promise<void> {
  await db.query(`UPDATE sync_runs SET graph_sync_id = $2 WHERE id = $1`, [syncId, owner]);
}

/** How many depends_on edges the graph of `graphOf` holds (as its sync recorded). */
export async function sharedDependsOn(db: Queryable, graphOf: string): Promise<number> {
  const r = await db.query<{ n: number | null }>(
    `SELECT (stats -> 'edges' ->> 'depends_on')::int AS n FROM sync_runs WHERE id = $1`,
    [graphOf],
  );
  return r.rows[0]?.n ?? 0;
}

/** The precise stats of the sync whose graph `syncId` shares (null when it shares none or that sync has none). */
export async function graphSyncPreciseStats<T>(db: Queryable, syncId: string): Promise<Record<string, T> | null> {
  const r = await db.query<{ precise: Record<string, T> | null }>(
    `SELECT o.stats -> 'precise' AS precise
       FROM sync_runs s JOIN sync_runs o ON o.id = s.graph_sync_id WHERE s.id = $1`,
    [syncId],
  );
  return r.rows[0]?.precise ?? null;
}
