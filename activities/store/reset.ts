/**
 * Idempotency of the sync activities: an attempt first removes what an earlier attempt of the same run left, so a
 * retry (after a crash, or a `retry` of a failed run) ends with exactly the rows of a clean run.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { withTransaction, type Pool } from '../../lib/db.ts';
import { releaseGraph } from '../../lib/sync-runs/index.ts';

/**
 * Removes the run's graph (or its sharing of another sync's), file records (chunks cascade), issues and step ledger,
 * and resets its issue counters. A run whose graph rows other syncs not cleaned share (schema V50: their graph and
 * their node reads go through this run's rows and file records) is not reset: nothing is removed and the step fails
 * for good (GraphShared), as delete_sync_graph (V52) would refuse anyway. When the run itself shared a cleaned sync's
 * graph and was its last sharer, that graph goes (as cleaning the last sharer does).
 */
export async function resetSyncData(pool: Pool, syncId: string): Promise<void> {
  await withTransaction(pool, async (tx) => {
    // FOR NO KEY UPDATE, as loadRun's (lib/sync-runs/row.ts): FOR UPDATE would also wait for every open transaction
    // holding a row that references the run (their foreign-key checks take FOR KEY SHARE on it), e.g. a step ledger
    // row of an attempt still in flight. No sharer can appear meanwhile: only completed syncs are shared, and a run
    // being reset is not one.
    const run = await tx.query<{ holder: string | null }>(
      `SELECT graph_sync_id AS holder FROM sync_runs WHERE id = $1 FOR NO KEY UPDATE`,
      [syncId],
    );
    const sharing = await tx.query<{ id: string }>(
      `SELECT id FROM sync_runs WHERE graph_sync_id = $1 AND status <> 'cleaned' ORDER BY created_at, id`,
      [syncId],
    );
    if (sharing.rows.length > 0) {
      throw ApplicationFailure.nonRetryable(
        `sync run ${syncId} holds the graph that syncs ${sharing.rows.map((r) => r.id).join(', ')} share: it is not reset`,
        'GraphShared',
      );
    }
    await tx.query(`SELECT delete_sync_graph($1)`, [syncId]);
    await tx.query(`DELETE FROM file_records WHERE sync_id = $1`, [syncId]);
    await tx.query(`DELETE FROM sync_issues WHERE sync_id = $1`, [syncId]);
    await tx.query(`DELETE FROM sync_steps WHERE sync_id = $1`, [syncId]);
    await tx.query(`UPDATE sync_runs SET issues_recorded = 0, issues_dropped = 0, graph_sync_id = NULL WHERE id = $1`, [
      syncId,
    ]);
    await releaseGraph(tx, run.rows[0]?.holder);
  });
}

/** Removes the run's issues of some phases (an activity that owns them is starting over) and recounts. */
export async function resetPhaseIssues(pool: Pool, syncId: string, phases: string[]): Promise<void> {
  await withTransaction(pool, async (tx) => {
    // Lock the run first, as the issue cap trigger does, so concurrent inserts wait for the recount.
    await tx.query(`SELECT 1 FROM sync_runs WHERE id = $1 FOR UPDATE`, [syncId]);
    await tx.query(`DELETE FROM sync_issues WHERE sync_id = $1 AND phase = ANY($2::text[])`, [syncId, phases]);
    await tx.query(
      `UPDATE sync_runs SET issues_recorded = (SELECT count(*) FROM sync_issues WHERE sync_id = $1) WHERE id = $1`,
      [syncId],
    );
  });
}
