/**
 * Activities of the schedules' trigger workflow (workflows/scheduled-sync.ts): create the scheduled run's row, or
 * record why this tick is skipped; mark the run failed when its workflow could not be started. Idempotent: the row
 * id comes from the workflow, so a retried activity finds the row it already wrote.
 */
import { isUniqueViolation, withTransaction, type Pool } from '../../lib/db.ts';
import { writeEvent } from '../../lib/events.ts';
import type { Logger } from '../../lib/log.ts';
import { getSchedule, markScheduleRun, setNextRunAt, triggerOf } from '../../lib/schedules.ts';
import { effectiveConfig, getSource, sourceName } from '../../lib/sources.ts';
import {
  changeStatus,
  getActiveSyncOf,
  getSync,
  insertPendingRun,
  ONE_ACTIVE_INDEX,
} from '../../lib/sync-runs/index.ts';
import type { PrepareResult, ScheduledSyncInput, SkipReason } from './types.ts';

export type * from './types.ts';

export interface ScheduleActivityDeps {
  pool: Pool;
  log: Logger;
  /** Clock of next_run_at (tests may pin it); Date.now by default. */
  now?: () => number;
}

/** The next tick of an interval schedule: Temporal's interval spec fires at epoch + n * every. */
export function nextTick(nowMs: number, intervalMinutes: number): Date {
  const every = intervalMinutes * 60_000;
  return new Date((Math.floor(nowMs / every) + 1) * every);
}

export function createScheduleActivities(deps: ScheduleActivityDeps) {
  const { pool, log } = deps;
  const now = deps.now ?? Date.now;

  async function skip(input: ScheduledSyncInput, reason: SkipReason, activeSyncId?: string): Promise<PrepareResult> {
    await withTransaction(pool, async (tx) => {
      const schedule = await getSchedule(tx, String(input.scheduleId), true);
      if (schedule?.enabled) await setNextRunAt(tx, schedule.id, nextTick(now(), schedule.interval_minutes));
      await writeEvent(tx, {
        type: 'schedule_run_skipped',
        sourceId: input.sourceId,
        payload: {
          schedule_id: input.scheduleId,
          source_id: input.sourceId,
          reason,
          ...(activeSyncId ? { active_sync_id: activeSyncId } : {}),
        },
      });
    });
    log.info('scheduled_sync_skipped', {
      schedule_id: input.scheduleId,
      source_id: input.sourceId,
      reason,
      active_sync_id: activeSyncId,
    });
    return activeSyncId ? { outcome: 'skipped', reason, activeSyncId } : { outcome: 'skipped', reason };
  }

  /** Creates the pending run of one scheduled tick (id `syncId`), or says why the tick is skipped. */
  async function prepareScheduledSync(input: ScheduledSyncInput & { syncId: string }): Promise<PrepareResult> {
    type Decision = Extract<PrepareResult, { outcome: 'created' }> | { skip: SkipReason; activeSyncId?: string };
    let decision: Decision;
    try {
      decision = await withTransaction(pool, async (tx): Promise<Decision> => {
        const schedule = await getSchedule(tx, String(input.scheduleId), true);
        const trigger = triggerOf(input.scheduleId);
        const done = await getSync(tx, input.syncId);
        if (done) {
          const source = await getSource(tx, done.source_id);
          return {
            outcome: 'created',
            syncId: done.id,
            sourceName: source ? sourceName(source) : '',
            ref: done.ref ?? source?.default_branch ?? '',
            trigger,
          };
        }
        if (!schedule) return { skip: 'schedule_deleted' };
        if (!schedule.enabled) return { skip: 'schedule_disabled' };
        const source = await getSource(tx, schedule.source_id, true);
        if (!source) return { skip: 'source_deleted' };
        if (!source.enabled) return { skip: 'source_disabled' };
        const active = await getActiveSyncOf(tx, source.id);
        if (active) return { skip: 'active_sync', activeSyncId: active.id };
        await insertPendingRun(tx, {
          id: input.syncId,
          sourceId: source.id,
          configSnapshot: effectiveConfig(source.config, schedule.config_overrides),
          ref: source.default_branch,
          triggeredBy: trigger,
          scheduleId: schedule.id,
        });
        await markScheduleRun(tx, schedule.id, nextTick(now(), schedule.interval_minutes));
        return {
          outcome: 'created',
          syncId: input.syncId,
          sourceName: sourceName(source),
          ref: source.default_branch,
          trigger,
        };
      });
    } catch (err) {
      // A sync created through the API between our check and our insert.
      if (!isUniqueViolation(err, ONE_ACTIVE_INDEX)) throw err;
      const active = await getActiveSyncOf(pool, input.sourceId);
      decision = { skip: 'active_sync', ...(active ? { activeSyncId: active.id } : {}) };
    }
    if ('skip' in decision) return skip(input, decision.skip, decision.activeSyncId);
    log.info('scheduled_sync_created', { schedule_id: input.scheduleId, sync_id: decision.syncId });
    return decision;
  }

  /** The scheduled run's workflow could not be started: the run must not stay pending. */
  async function failScheduledSync(input: { syncId: string; error: string }): Promise<void> {
    await withTransaction(pool, (tx) =>
      changeStatus(tx, { syncId: input.syncId, from: ['pending'], to: 'failed', error: input.error }),
    );
    log.warning('scheduled_sync_start_failed', { sync_id: input.syncId, error: input.error });
  }

  return { prepareScheduledSync, failScheduledSync };
}

export type ScheduleActivities = ReturnType<typeof createScheduleActivities>;
