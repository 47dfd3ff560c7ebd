/**
 * Status changes of a sync run: beginSync (pending → running, or failed for a disabled source), endSync
 * (→ failed | cancelled) and finalizeSync (→ completed, source.last_sync_id). Each change and its events are one
 * transaction; each activity is idempotent (a repeated call after a crash changes nothing more).
 */
import { withTransaction } from '../../lib/db.ts';
import { writeEvent } from '../../lib/events.ts';
import type { BeginSyncResult, SyncStats } from '../../workflows/sync-types.ts';
import type { ActivityDeps } from './deps.ts';
import { writeLifecycleEvent } from './lifecycle-event.ts';
import { PHASES } from './progress.ts';
import { recordSyncDurations, recordSyncEnded } from './metrics.ts';
import { loadRun } from './runs.ts';

export interface SyncIds {
  syncId: string;
  sourceId: string;
}

export function createLifecycleActivities({ pool, settings, log }: ActivityDeps) {
  async function beginSync({ syncId, sourceId }: SyncIds): Promise<BeginSyncResult> {
    const result = await withTransaction(pool, async (tx): Promise<BeginSyncResult> => {
      const run = await loadRun(tx, syncId, true);
      if (!run || run.source_id !== sourceId) return { proceed: false, status: 'skipped', error: 'sync run not found' };
      const proceed: BeginSyncResult = {
        proceed: true,
        embeddings: run.config_snapshot.embeddings !== false,
        settings: {
          heartbeatTimeoutMs: settings.heartbeatTimeoutMs,
          maxAttempts: settings.maxAttempts,
          attemptTimeoutMs: settings.attemptTimeoutMs,
        },
      };
      // A retried beginSync (its first attempt committed, then the worker died) goes on.
      if (run.status === 'running') return proceed;
      if (run.status !== 'pending') return { proceed: false, status: 'skipped', error: `sync run is ${run.status}` };
      const source = `${run.source_owner}/${run.source_name}`;
      if (!run.source_enabled) {
        const error = `source ${source} is disabled: it starts no sync`;
        await tx.query(
          `UPDATE sync_runs SET status = 'failed', error = $2, completed_at = now(),
                  progress_meta = jsonb_build_object('phase', 'refused') WHERE id = $1`,
          [syncId, error],
        );
        await writeLifecycleEvent(tx, {
          syncId,
          sourceId,
          status: 'failed',
          previousStatus: 'pending',
          triggeredBy: run.triggered_by,
          error,
        });
        return { proceed: false, status: 'failed', error };
      }
      await tx.query(
        `UPDATE sync_runs SET status = 'running', started_at = now(), completed_at = NULL, error = NULL,
                progress_done = 0, progress_total = 0, stats = '{}'::jsonb,
                progress_meta = jsonb_build_object('phase', 'starting', 'phases', $2::jsonb)
          WHERE id = $1`,
        [syncId, JSON.stringify(PHASES)],
      );
      await writeLifecycleEvent(tx, {
        syncId,
        sourceId,
        status: 'running',
        previousStatus: 'pending',
        triggeredBy: run.triggered_by,
      });
      return proceed;
    });
    if (!result.proceed && result.status === 'failed') recordSyncEnded('failed');
    log.info('sync_begin', { sync_id: syncId, source_id: sourceId, proceed: result.proceed });
    return result;
  }

  async function endSync(
    input: SyncIds & { status: 'failed' | 'cancelled'; error: string },
  ): Promise<{ changed: boolean }> {
    const { syncId, sourceId, status, error } = input;
    const changed = await withTransaction(pool, async (tx) => {
      const run = await loadRun(tx, syncId, true);
      if (!run || (run.status !== 'pending' && run.status !== 'running')) return false;
      await tx.query(
        `UPDATE sync_runs SET status = $2, error = $3, completed_at = now(),
                progress_meta = progress_meta || jsonb_build_object('phase', $2::text) WHERE id = $1`,
        [syncId, status, error],
      );
      await writeLifecycleEvent(tx, {
        syncId,
        sourceId,
        status,
        previousStatus: run.status,
        triggeredBy: run.triggered_by,
        error,
      });
      return true;
    });
    if (changed) recordSyncEnded(status);
    log[status === 'failed' ? 'warning' : 'info'](`sync_${status}`, { sync_id: syncId, source_id: sourceId, error });
    return { changed };
  }

  async function finalizeSync(
    input: SyncIds & { stats: SyncStats; startedAtMs: number },
  ): Promise<{ changed: boolean }> {
    const { syncId, sourceId } = input;
    const t0 = Date.now();
    let durations: Record<string, number | undefined> = {};
    const changed = await withTransaction(pool, async (tx) => {
      const run = await loadRun(tx, syncId, true);
      if (!run || run.status !== 'running') return false;
      const counts = await tx.query<{ issues_recorded: number; issues_dropped: number }>(
        `SELECT issues_recorded, issues_dropped FROM sync_runs WHERE id = $1`,
        [syncId],
      );
      const issues = counts.rows[0] ?? { issues_recorded: 0, issues_dropped: 0 };
      const finalizing = Date.now() - t0;
      const stats = {
        ...input.stats,
        issues: { recorded: issues.issues_recorded, dropped: issues.issues_dropped },
        durations_ms: {
          ...input.stats.durations_ms,
          finalizing,
          total: run.started_at ? Date.now() - run.started_at.getTime() : Date.now() - input.startedAtMs,
        },
      };
      durations = stats.durations_ms;
      await tx.query(
        `UPDATE sync_runs SET status = 'completed', completed_at = now(), stats = $2,
                progress_done = progress_total, progress_meta = progress_meta || '{"phase":"completed"}'::jsonb
          WHERE id = $1`,
        [syncId, JSON.stringify(stats)],
      );
      const src = await tx.query<{ last_synced_at: Date }>(
        `UPDATE sources SET last_sync_id = $2, last_synced_at = now() WHERE id = $1 RETURNING last_synced_at`,
        [sourceId, syncId],
      );
      await writeLifecycleEvent(tx, {
        syncId,
        sourceId,
        status: 'completed',
        previousStatus: 'running',
        triggeredBy: run.triggered_by,
        stats,
      });
      await writeEvent(tx, {
        type: 'source_changed',
        sourceId,
        syncId,
        payload: {
          source_id: sourceId,
          change: 'synced',
          last_sync_id: syncId,
          last_synced_at: src.rows[0]?.last_synced_at.toISOString() ?? null,
        },
      });
      return true;
    });
    if (changed) {
      recordSyncEnded('completed');
      recordSyncDurations(durations);
    }
    log.info('sync_completed', { sync_id: syncId, source_id: sourceId, changed });
    return { changed };
  }

  return { beginSync, endSync, finalizeSync };
}
