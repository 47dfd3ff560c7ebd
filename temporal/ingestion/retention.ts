/**
 * The retention schedule (issue 30): the ingestion component keeps one Temporal Schedule, `<SCHEDULE_ID_PREFIX>
 * retention`, whose action runs `retentionWorkflow` every RETENTION_INTERVAL_MINUTES on the sync task queue, with the
 * policy from this component's environment as its input (so the Temporal UI shows what a run applies). It is created
 * at start-up, or brought in line with the environment when it exists (a pause set by an operator in the UI is kept).
 * RETENTION_INTERVAL_MINUTES=0 leaves the schedule alone (for deployments where another component owns it).
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Client, ScheduleOptions } from '@temporalio/client';
import type { Logger } from '../../lib/log.ts';
import type { RetentionInput } from '../../lib/retention.ts';
import { RETENTION_WORKFLOW_TYPE, retentionScheduleId } from '../../workflows/retention-contract.ts';

export interface RetentionScheduleSettings {
  prefix: string;
  taskQueue: string;
  intervalMinutes: number;
  input: RetentionInput;
}

function options(s: RetentionScheduleSettings): ScheduleOptions {
  const id = retentionScheduleId(s.prefix);
  return {
    scheduleId: id,
    spec: { intervals: [{ every: `${s.intervalMinutes}m` }] },
    action: {
      type: 'startWorkflow',
      workflowType: RETENTION_WORKFLOW_TYPE,
      workflowId: id,
      taskQueue: s.taskQueue,
      args: [s.input],
      memo: { purpose: 'retention of syncs and events (docs/operators.md)' },
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1m' },
    memo: { purpose: 'retention of syncs and events', interval_minutes: s.intervalMinutes },
  };
}

/** Creates the retention schedule, or updates its spec and action when it exists. Returns its id (or undefined). */
export async function ensureRetentionSchedule(
  client: Client,
  s: RetentionScheduleSettings,
  log: Logger,
): Promise<string | undefined> {
  if (s.intervalMinutes <= 0) return undefined;
  const wanted = options(s);
  try {
    await client.schedule.create(wanted);
    log.info('retention_schedule_created', { schedule_id: wanted.scheduleId, interval_minutes: s.intervalMinutes });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(wanted.scheduleId).update((prev) => ({
      ...prev,
      spec: wanted.spec,
      action: wanted.action,
      policies: wanted.policies,
    }));
    log.info('retention_schedule_updated', { schedule_id: wanted.scheduleId, interval_minutes: s.intervalMinutes });
  }
  return wanted.scheduleId;
}
