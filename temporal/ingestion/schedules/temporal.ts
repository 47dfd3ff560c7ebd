/**
 * Schedules as Temporal Schedules. Temporal schedule id = the row's temporal_id, `<SCHEDULE_ID_PREFIX><owner>-<name>-
 * <row id>` (e.g. `sched-golang-encoding-json-5`; rows made before V49: `<prefix><id>` until the watcher renames
 * them, rename.ts); its action starts the trigger workflow `scheduledSyncWorkflow({ scheduleId, sourceId })` on the
 * sync task queue (runs are named `<schedule id>-<timestamp>` by Temporal); every <interval_minutes> minutes, aligned
 * to the Unix epoch; overlap policy SKIP; a disabled schedule is a paused one. The memo and search attributes name
 * the source.
 */
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Client, ScheduleDescription, ScheduleOptions } from '@temporalio/client';
import {
  CKG_SOURCE_ID,
  CKG_SOURCE_NAME,
  CKG_TRIGGER,
  SCHEDULED_SYNC_WORKFLOW_TYPE,
} from '../../../workflows/sync-contract.ts';
import type { ScheduleRow } from '../../../lib/resources.ts';
import { temporalIdOfRow, triggerOf } from '../../../lib/schedules.ts';

export interface ScheduledSyncArgs {
  scheduleId: number;
  sourceId: string;
}

export interface TemporalScheduleSpec {
  /** The Temporal schedule's id. */
  temporalId: string;
  /** The schedules row's id. */
  scheduleId: string;
  sourceId: string;
  sourceName: string;
  intervalMinutes: number;
  enabled: boolean;
  taskQueue: string;
  /** The pause note (default: what the API's enabled flag says); a rename keeps an operator's note. */
  note?: string;
}

/** The Temporal schedule a schedules row stands for (`temporalId` given: under that id instead of the row's). */
export function scheduleSpec(
  settings: { taskQueue: string; scheduleIdPrefix: string },
  row: Pick<ScheduleRow, 'id' | 'source_id' | 'interval_minutes' | 'enabled' | 'temporal_id'>,
  sourceName: string,
  temporalId = temporalIdOfRow(settings.scheduleIdPrefix, row),
): TemporalScheduleSpec {
  return {
    temporalId,
    scheduleId: row.id,
    sourceId: row.source_id,
    sourceName,
    intervalMinutes: row.interval_minutes,
    enabled: row.enabled,
    taskQueue: settings.taskQueue,
  };
}

function pausedNote(enabled: boolean): string {
  return enabled ? 'enabled' : 'disabled through the API (PATCH enabled=false)';
}

function options(s: TemporalScheduleSpec): ScheduleOptions {
  const id = s.temporalId;
  const args: [ScheduledSyncArgs] = [{ scheduleId: Number(s.scheduleId), sourceId: s.sourceId }];
  const attributes = [
    { key: CKG_SOURCE_ID, value: s.sourceId },
    { key: CKG_SOURCE_NAME, value: s.sourceName },
    { key: CKG_TRIGGER, value: triggerOf(s.scheduleId) },
  ];
  return {
    scheduleId: id,
    spec: { intervals: [{ every: `${s.intervalMinutes}m` }] },
    action: {
      type: 'startWorkflow',
      workflowType: SCHEDULED_SYNC_WORKFLOW_TYPE,
      workflowId: id,
      taskQueue: s.taskQueue,
      args,
      memo: { source: s.sourceName, source_id: s.sourceId, schedule_id: Number(s.scheduleId) },
      typedSearchAttributes: attributes,
      // The header of each tick's workflow page names the repository (the sync it starts has its own).
      staticSummary: `scheduled sync of ${s.sourceName} (every ${s.intervalMinutes} min, schedule ${s.scheduleId})`,
      staticDetails: [
        `**source** ${s.sourceName} (\`${s.sourceId}\`)`,
        `**schedule** ${s.scheduleId} (\`${s.temporalId}\`), every ${s.intervalMinutes} minutes`,
        '**starts** `syncWorkflow` with workflow id = the source id, unless the source has an active sync',
      ].join('\n\n'),
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1m' },
    state: { paused: !s.enabled, note: s.note ?? pausedNote(s.enabled) },
    memo: {
      source: s.sourceName,
      source_id: s.sourceId,
      schedule_id: Number(s.scheduleId),
      interval_minutes: s.intervalMinutes,
    },
    typedSearchAttributes: attributes,
  };
}

/** The next time the schedule will act: null when paused. */
export function nextRunOf(d: ScheduleDescription): Date | null {
  if (d.state.paused) return null;
  return d.info.nextActionTimes[0] ?? null;
}

/** Creates the Temporal schedule (replacing a stale one of the same id) and returns its next run time. */
export async function createTemporalSchedule(client: Client, s: TemporalScheduleSpec): Promise<Date | null> {
  let handle;
  try {
    handle = await client.schedule.create(options(s));
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    // Left over from an earlier database with the same ids: ours replaces it.
    await client.schedule.getHandle(err.scheduleId).delete();
    handle = await client.schedule.create(options(s));
  }
  return nextRunOf(await handle.describe());
}

/** Brings the Temporal schedule in line with the row (recreating it when missing); returns its next run time. */
export async function syncTemporalSchedule(client: Client, s: TemporalScheduleSpec): Promise<Date | null> {
  const handle = client.schedule.getHandle(s.temporalId);
  const wanted = options(s);
  try {
    await handle.update(() => ({
      spec: wanted.spec,
      action: wanted.action,
      policies: wanted.policies,
      state: { paused: !s.enabled, note: pausedNote(s.enabled) },
      typedSearchAttributes: wanted.typedSearchAttributes,
    }));
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
    return createTemporalSchedule(client, s);
  }
  return nextRunOf(await handle.describe());
}

/** Deletes the Temporal schedule; a missing one is fine. */
export async function deleteTemporalSchedule(client: Client, temporalId: string): Promise<void> {
  try {
    await client.schedule.getHandle(temporalId).delete();
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
  }
}

export async function describeTemporalSchedule(
  client: Client,
  temporalId: string,
): Promise<ScheduleDescription | undefined> {
  try {
    return await client.schedule.getHandle(temporalId).describe();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return undefined;
    throw err;
  }
}
