/**
 * Idempotency of the sync activities: an attempt first removes what an earlier attempt of the same run left, so a
 * retry (after a crash, or a `retry` of a failed run) ends with exactly the rows of a clean run.
 */
import { withTransaction, type Pool } from '../../lib/db.ts';

/** Removes the run's graph (or its sharing of another sync's), file records (chunks cascade), issues and step ledger, and resets its issue counters. */
export async function resetSyncData(pool: Pool, syncId: string): Promise<void> {
  await withTransaction(pool, async (tx) => {
    await tx.query(`SELECT delete_sync_graph($1)`, [syncId]);
    await tx.query(`DELETE FROM file_records WHERE sync_id = $1`, [syncId]);
    await tx.query(`DELETE FROM sync_issues WHERE sync_id = $1`, [syncId]);
    await tx.query(`DELETE FROM sync_steps WHERE sync_id = $1`, [syncId]);
    await tx.query(`UPDATE sync_runs SET issues_recorded = 0, issues_dropped = 0, graph_sync_id = NULL WHERE id = $1`, [
      syncId,
    ]);
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
