/**
 * finalizeSync: the planner statistics refreshed for the new sync (refreshStatistics), then running → completed with
 * the run's stats (the issue counts kept and dropped by the cap of 1000, the phase durations, the total),
 * source.last_sync_id / last_synced_at and the source_changed event, in one transaction. Idempotent: a run that is no
 * longer running is left alone.
 */
import { withTransaction } from '../../lib/db.ts';
import { writeEvent } from '../../lib/events.ts';
import type { EndSyncResult, FinalizeInput } from '../../workflows/sync-types.ts';
import type { ActivityDeps } from './helpers/deps.ts';
import { heartbeating } from './helpers/heartbeat.ts';
import { changeStatus, loadRun } from '../../lib/sync-runs/index.ts';
import { endedElsewhere, executionRunId, reviveRun } from './helpers/run-claim.ts';
import { incrementalStats } from '../reuse/incremental.ts';
import { writeSearchStats } from '../store/search-stats.ts';
import { sharedPreciseStats } from '../graph-alias.ts';
import { recordSyncDurations, recordSyncEnded } from './helpers/metrics.ts';
import {
  analyzeSyncTables,
  dropEmbedInputs,
  flushSearchIndexes,
  issueCounts,
  markSourceSynced,
  runIsActive,
} from '../store/runs.ts';

export function createFinalizeSync({ pool, settings, log }: ActivityDeps) {
  async function finalizeSync(input: FinalizeInput): Promise<EndSyncResult> {
    return heartbeating(settings.heartbeatTimeoutMs, () => finalize(input));
  }

  async function finalize(input: FinalizeInput): Promise<EndSyncResult> {
    const { syncId, sourceId } = input;
    const t0 = Date.now();
    const runId = executionRunId();
    let durations: Record<string, number | undefined> = {};
    // Before the completion, never after it (refreshStatistics says why).
    if (await runIsActive(pool, syncId)) await refreshStatistics(syncId);
    const result = await withTransaction(pool, async (tx): Promise<EndSyncResult> => {
      const run = await loadRun(tx, syncId, true);
      if (!run) return { changed: false };
      if (run.status !== 'running') {
        // An operator's Reset of a workflow whose run had ended: this execution completes it.
        if (!endedElsewhere(run, runId)) return { changed: false, status: run.status };
        await reviveRun(tx, run, runId);
      }
      const issues = await issueCounts(tx, syncId);
      const finalizing = Date.now() - t0;
      const incremental = await incrementalStats(tx, syncId);
      // Lexical search ranks with the sync's term statistics: written before the sync is completed (searchable).
      await writeSearchStats(tx, syncId, incremental);
      // A sync sharing its predecessor's graph ran no precise step: the shared graph's precise edges are reused.
      const precise = input.stats.precise ? null : await sharedPreciseStats(tx, syncId);
      const stats = {
        ...input.stats,
        ...(precise ? { precise } : {}),
        ...(incremental ? { incremental } : {}),
        issues: { recorded: issues.issues_recorded, dropped: issues.issues_dropped },
        durations_ms: {
          ...input.stats.durations_ms,
          finalizing,
          total: run.started_at ? Date.now() - run.started_at.getTime() : Date.now() - input.startedAtMs,
        },
      };
      durations = stats.durations_ms;
      await changeStatus(tx, { syncId, from: ['running'], to: 'completed', stats, meta: { phase: 'completed' } });
      await dropEmbedInputs(tx, syncId);
      const lastSyncedAt = await markSourceSynced(tx, sourceId, syncId);
      // A pull request's sync (docs/webhooks.md) is a review snapshot: the source's last sync stays as it was. So
      // does a run older than the newest completed one (an operator's Reset of an old run): last_sync_id names the
      // newest completed sync, the one node detail and diff default to.
      if (lastSyncedAt) {
        await writeEvent(tx, {
          type: 'source_changed',
          sourceId,
          syncId,
          payload: {
            source_id: sourceId,
            change: 'synced',
            last_sync_id: syncId,
            last_synced_at: lastSyncedAt.toISOString(),
          },
        });
      }
      return { changed: true, status: 'completed' };
    });
    const changed = result.changed;
    if (changed) {
      recordSyncEnded('completed');
      recordSyncDurations(durations);
    }
    log.info('sync_completed', { sync_id: syncId, source_id: sourceId, changed });
    return result;
  }

  /**
   * A just-completed sync is not a planner trap (issue 30): its id is a value the statistics of the File label and
   * sync_files have not seen, so reads that select its rows by sync_id (snapshots for the merged graph, impact and
   * diff; node detail; search scopes) were planned for one row and could pick nested loops that took a minute on the
   * Go standard library. ANALYZE of the two tables (a sample of 30,000 rows each: tens of milliseconds) puts the new
   * sync in their most-common values before the first read; sync_files is vacuumed as it is analyzed, so the first
   * chunk search's probe of the new records needs no heap visit (store/runs.ts analyzeSyncTables). Then the search
   * indexes' pending entries are merged (store/runs.ts flushSearchIndexes).
   *
   * Run before the completing transaction, never after it: the workflow (id = source id) stays open until
   * finalizeSync returns, so work after the completion made a sync created right after it wait for the close and
   * answer 409 past START_CONFLICT_WAIT_MS (5 s; the refresh took longer with 40 kept Go syncs), and let the first
   * reads be planned before the refresh. Every step of the sync has committed by then, so the VACUUM can mark its new
   * pages all-visible (analyzeSyncTables flushes the WAL first, for asynchronous commit); another session's
   * transaction older than the sync's last write (another source's write, a long read) still holds them back, after
   * the completion as much as before it. Best effort: a lock held by autovacuum is not waited for beyond a second per
   * statement, and a failure only costs the estimate (or a slower search until autovacuum merges).
   */
  async function refreshStatistics(syncId: string): Promise<void> {
    const t0 = Date.now();
    const client = await pool.connect();
    try {
      await analyzeSyncTables(client);
      await flushSearchIndexes(client);
      log.debug('sync_statistics_refreshed', { sync_id: syncId, ms: Date.now() - t0 });
    } catch (err) {
      log.info('sync_statistics_not_refreshed', { sync_id: syncId, error: err });
    } finally {
      client.release();
    }
  }

  return { finalizeSync };
}
