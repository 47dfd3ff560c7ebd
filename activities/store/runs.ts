/**
 * What the steps read and write of a run beside its status (lib/sync-runs owns the status): whether it still runs,
 * and what the end of a sync writes: ledger, source, statistics.
 */
import type { PoolClient, Queryable } from '../../lib/db.ts';

/** Whether the run is pending or running (a sync holding a kept clone that has ended gives it up). */
export async function runIsActive(db: Queryable, syncId: string): Promise<boolean> {
  const r = await db.query(`SELECT 1 FROM sync_runs WHERE id = $1 AND status IN ('pending', 'running')`, [syncId]);
  return (r.rowCount ?? 0) > 0;
}

/** The run's issue counts (kept, and dropped by the cap). */
export async function issueCounts(
  db: Queryable,
  syncId: string,
): Promise<{ issues_recorded: number; issues_dropped: number }> {
  const r = await db.query<{ issues_recorded: number; issues_dropped: number }>(
    `SELECT issues_recorded, issues_dropped FROM sync_runs WHERE id = $1`,
    [syncId],
  );
  return r.rows[0] ?? { issues_recorded: 0, issues_dropped: 0 };
}

/** The file embedding texts of the write steps were for embedFiles only: dropped, the rest of the ledger kept. */
export async function dropEmbedInputs(db: Queryable, syncId: string): Promise<void> {
  await db.query(
    `UPDATE sync_steps SET handoff = handoff - 'embed_inputs' WHERE sync_id = $1 AND handoff ? 'embed_inputs'`,
    [syncId],
  );
}

/**
 * Makes the sync its source's last sync, unless it is a pull request's sync (a review snapshot) or older than the
 * newest completed branch sync (an operator's Reset of an old run). Returns last_synced_at when it did.
 */
export async function markSourceSynced(db: Queryable, sourceId: string, syncId: string): Promise<Date | undefined> {
  const r = await db.query<{ last_synced_at: Date }>(
    `UPDATE sources SET last_sync_id = $2, last_synced_at = now()
      WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM pull_request_syncs p WHERE p.sync_id = $2)
        AND NOT EXISTS (SELECT 1 FROM sync_runs n, sync_runs r
                         WHERE r.id = $2 AND n.source_id = $1 AND n.status = 'completed' AND n.id <> $2
                           AND (n.created_at, n.id) > (r.created_at, r.id)
                           AND NOT EXISTS (SELECT 1 FROM pull_request_syncs p WHERE p.sync_id = n.id))
      RETURNING last_synced_at`,
    [sourceId, syncId],
  );
  return r.rows[0]?.last_synced_at;
}

/**
 * VACUUM (ANALYZE) of sync_files, then ANALYZE of the File label, on a client of its own, each not waiting more than
 * a second for a lock (a lock held by autovacuum or an operator's VACUUM is not waited for); each is tried whatever
 * the other did, the first error is thrown after both, and the lock timeout is reset before the client goes back to
 * the pool. The VACUUM makes the new sync's file records all-visible: chunk search steps from a chunk to the searched
 * syncs by an index-only probe of sync_files (content_id, sync_id), which visits the table for every record on a page
 * not yet all-visible (with 36 kept Go syncs: a heap fetch per candidate, lexical search 1.5x its one-sync time, until
 * autovacuum came by). It visits only the pages not all-visible, so it costs about the sync's own records.
 *
 * A page is marked all-visible only once its rows' inserts are hinted committed, and PostgreSQL does not hint an
 * asynchronous commit (synchronous_commit = off, as the local stack runs) until the WAL is flushed up to the commit
 * LSN it records for the transaction's group of 32 ids, the newest asynchronous commit in that group (any database
 * of the cluster). So the WAL is flushed first (a logical message with flush, PostgreSQL 17: the one statement that
 * flushes without writing a row) and the VACUUM comes right after it, before the ANALYZE whose own commit would
 * raise the group's LSN again. Without that, a VACUUM right after the sync's last write left its pages not
 * all-visible whenever that group was still open (the all-visible test failed in 4 of 7 runs). With synchronous
 * commit none of this matters.
 */
export async function analyzeSyncTables(client: PoolClient): Promise<void> {
  let failure: Error | undefined;
  const fail = (err: unknown) => {
    failure ??= err instanceof Error ? err : new Error(String(err));
  };
  try {
    await client.query(`SET lock_timeout = '1s'`);
    await client.query(`SELECT pg_logical_emit_message(false, 'ckg', 'flush', true)`).catch(fail);
    for (const statement of [`VACUUM (ANALYZE) sync_files`, `ANALYZE service."File"`]) {
      await client.query(statement).catch(fail);
    }
  } finally {
    await client.query(`RESET lock_timeout`).catch(() => undefined);
  }
  if (failure !== undefined) throw failure;
}

/**
 * The search indexes' GIN pending lists, merged into their trees (issue 32): GIN's fast update appends new entries to
 * a pending list (up to gin_pending_list_limit, 4 MB) that every search scans whole until autovacuum or an insert
 * past the limit merges it; after a Go standard library sync ~430 pending pages added ~8 ms to each chunk search.
 * Run when a sync completes: the merge costs what autovacuum would spend later, and nothing is pending when its
 * chunks are first searched (an unchanged re-sync writes none: nothing to merge).
 */
export async function flushSearchIndexes(client: PoolClient): Promise<void> {
  // The merge waits for the index's metapage lock, which autovacuum's merge holds: not beyond a second.
  try {
    await client.query(`SET lock_timeout = '1s'`);
    await client.query(
      `SELECT gin_clean_pending_list(i) FROM unnest(ARRAY[to_regclass('file_content_chunks_search_terms'),
                                                        to_regclass('file_content_symbols_name_trgm')]) AS i
        WHERE i IS NOT NULL`,
    );
  } finally {
    await client.query(`RESET lock_timeout`).catch(() => undefined);
  }
}
