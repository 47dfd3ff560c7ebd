/**
 * Activities of the stand-in syncWorkflow (test/support/workflows/ingestion.ts), used until the pipeline's real
 * worker lands on main: they move a run through its states with the lifecycle events, as the real one does.
 */
import { withTransaction, type Pool } from '../../../lib/db.ts';
import { changeStatus } from '../../../temporal/ingestion/syncs/rows.ts';

export function createStandinSyncActivities(pool: Pool) {
  /** pending → running; false when the run is no longer pending (cancelled, purged...). */
  async function standinBegin(input: { syncId: string }): Promise<boolean> {
    const changed = await withTransaction(pool, async (tx) => {
      const c = await changeStatus(tx, { syncId: input.syncId, from: ['pending'], to: 'running' });
      if (c) await tx.query(`UPDATE sync_runs SET started_at = now() WHERE id = $1`, [input.syncId]);
      return c;
    });
    return changed !== undefined;
  }

  async function standinEnd(input: {
    syncId: string;
    status: 'completed' | 'failed' | 'cancelled';
    error?: string;
  }): Promise<void> {
    await withTransaction(pool, (tx) =>
      changeStatus(tx, {
        syncId: input.syncId,
        from: ['running'],
        to: input.status,
        ...(input.error !== undefined ? { error: input.error } : {}),
      }),
    );
  }

  return { standinBegin, standinEnd };
}

export type StandinSyncActivities = ReturnType<typeof createStandinSyncActivities>;
